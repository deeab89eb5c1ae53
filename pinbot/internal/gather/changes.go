package gather

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/audit"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// changes reads the pull request's range: its files and commits, and the
// dependency changes of its manifests between merge base and head.
func (g *Gatherer) changes(ctx context.Context, src source.Source, t Target, records []adr.Record, in *enforce.Input, fail func(error)) {
	pr := t.PR
	cmp, err := src.Compare(ctx, pr.BaseSHA, pr.HeadSHA)
	if err != nil {
		fail(fmt.Errorf("comparing %s...%s: %w", short(pr.BaseSHA), short(pr.HeadSHA), err))
		return
	}
	if cmp.Err != nil {
		fail(cmp.Err)
	}
	files := cmp.Files
	if pr.ChangedFiles > len(files) {
		// GitHub's comparison lists at most 300 files; the pull request's
		// own list goes to 3,000. Past that nothing lists them: fail closed.
		if files, err = src.Files(ctx, pr.Number); err != nil {
			fail(fmt.Errorf("reading the files of #%d: %w", pr.Number, err))
			return
		}
		if len(files) < pr.ChangedFiles {
			fail(fmt.Errorf("reading the files of #%d: GitHub listed %d of %d changed files", pr.Number, len(files), pr.ChangedFiles))
		}
	}
	in.PR.Commits = cmp.Commits
	changed := map[string]source.ChangedFile{}
	for _, f := range files {
		in.PR.Files = append(in.PR.Files, f.Path)
		changed[f.Path] = f
		if f.Previous != "" {
			in.PR.Files = append(in.PR.Files, f.Previous)
		}
	}
	slices.Sort(in.PR.Files)
	in.PR.Files = slices.Compact(in.PR.Files)

	in.Warnings = append(in.Warnings, headRecords(ctx, source.NewReader(src, pr.HeadSHA), files, in)...)

	// Kubernetes manifests in the folders configured for docker (ADR 0187).
	kdirs := in.Config.KubernetesDirs(in.Dependabot)
	kube := func(p string) bool { return p != "" && pin.IsKubernetesManifest(p, kdirs) }
	// A resolution input changed alone (an imported .props, .npmrc, a
	// Compose .env, gradle.properties: every file of an ecosystem's Inputs
	// in the registry) is judged like a manifest: pin.Diff re-resolves
	// what reads it, or fails closed naming it (issue 36, item 1, ADR
	// 0320). Only a pull request that changes none of them skips the diff.
	judged := false
	for _, p := range in.PR.Files {
		judged = judged || pin.IsManifest(p) || kube(p) || pin.IsInput(p)
	}
	// A pip requirements file may include a file of any name (-r, -c; ADR
	// 0330), and a compose file or a kustomization may name one (ADR
	// 0360): when a record pins a package of such an ecosystem (or one of
	// no known ecosystem), a pull request changing no manifest is judged
	// if the merge base has a file that could name what it changes. The
	// tree read below is then the same one.
	if !judged && !anyNamePinned(records) {
		return
	}
	mb, err := src.Tree(ctx, cmp.MergeBase)
	if err != nil {
		fail(fmt.Errorf("reading the tree of merge base %s: %w", short(cmp.MergeBase), err))
		return
	}
	for p := range mb.Files {
		if judged {
			break
		}
		judged = pin.NamesAnyFile(p)
	}
	if !judged {
		return
	}
	// The head's tree is the merge base's with the changed files replaced:
	// no second tree read.
	head := make(map[string]source.Entry, len(mb.Files))
	for p, e := range mb.Files {
		head[p] = e
	}
	for _, f := range files {
		if f.Previous != "" {
			delete(head, f.Previous)
		}
		if f.Status == "removed" {
			delete(head, f.Path)
			continue
		}
		e := source.Entry{SHA: f.SHA, Mode: "100644"}
		if old, ok := mb.Files[f.Path]; ok && old.Mode != "" {
			e.Mode = old.Mode
		}
		head[f.Path] = e
	}
	// A Go workspace selects versions across all its modules: when a go.mod
	// or go.work changes, pin.Diff needs every go.mod and go.work of both
	// trees (issue 17, items 1 and 2).
	goFile := func(p string) bool {
		_, ok := pin.FormatOf(p)
		return ok && (path.Base(p) == "go.mod" || path.Base(p) == "go.work")
	}
	workspace := slices.ContainsFunc(files, func(f source.ChangedFile) bool { return goFile(f.Path) || goFile(f.Previous) })
	// Likewise an ecosystem pinbot resolves across files (Maven parents,
	// MSBuild's Directory.*.props, Cargo and Terraform locks) needs every
	// evaluated input of that ecosystem once one of them changes (issue 23).
	resolve := pin.ResolutionFiles(in.PR.Files)
	visible := func(p string) bool {
		_, ok := changed[p]
		return ok || isPrevious(files, p) || (workspace && goFile(p)) || resolve(p)
	}
	baseRead := source.NewReader(src, cmp.MergeBase)
	headRead := source.NewReader(src, pr.HeadSHA)
	var want []string
	for _, f := range files {
		if pin.IsManifest(f.Path) || pin.IsManifest(f.Previous) || kube(f.Path) || kube(f.Previous) {
			if e, ok := mb.Files[orPath(f.Previous, f.Path)]; ok {
				want = append(want, e.SHA)
			}
		}
	}
	for p, e := range mb.Files {
		if (workspace && goFile(p)) || resolve(p) {
			want = append(want, e.SHA)
		}
	}
	baseRead.Prefetch(ctx, want)
	baseFS := baseRead.FS(ctx, mb.Files, visible, nil)
	// A changed file's head content is its base content with GitHub's
	// patch applied, when the result has the blob SHA GitHub names; only
	// otherwise is the blob read.
	headRead.Derive = func(ctx context.Context, p string, e source.Entry) []byte {
		f, ok := changed[p]
		if !ok || f.Patch == "" || f.SHA != e.SHA {
			return nil
		}
		var old []byte
		if be, ok := mb.Files[orPath(f.Previous, p)]; ok && f.Status != "added" {
			b, err := baseRead.Blob(ctx, be)
			if err != nil {
				return nil
			}
			old = b
		}
		data, err := applyPatch(old, f.Patch)
		if err != nil || source.BlobSHA(data) != f.SHA {
			return nil
		}
		return data
	}
	headFS := headRead.FS(ctx, head, visible, nil)
	// The comparison gives no file modes, and a manifest replaced by a
	// symbolic link must fail closed (issue 17, item 10). A link's blob is
	// its target: one line without a newline. Only when a changed
	// manifest's head content has that shape is the head's tree read (one
	// call, cached by commit), and its modes replace the assumed ones.
	if linkShaped(ctx, headFS, files, kube) {
		ht, err := src.Tree(ctx, pr.HeadSHA)
		if err != nil {
			fail(fmt.Errorf("reading the tree of head %s: %w", short(pr.HeadSHA), err))
			return
		}
		for _, f := range files {
			if e, ok := head[f.Path]; ok {
				if he, ok := ht.Files[f.Path]; ok && he.SHA == e.SHA {
					e.Mode = he.Mode
					head[f.Path] = e
				}
			}
		}
		headFS = headRead.FS(ctx, head, visible, nil)
	}
	changes, err := pin.Diff(baseFS, headFS)
	if err != nil {
		fail(err)
	}
	var kpairs []pin.FilePair
	for _, f := range files {
		if !kube(f.Path) && !kube(f.Previous) {
			continue
		}
		pair := pin.FilePair{Path: f.Path}
		if data, err := fs.ReadFile(baseFS, orPath(f.Previous, f.Path)); err == nil {
			pair.Base = data
		} else if !errors.Is(err, fs.ErrNotExist) {
			fail(fmt.Errorf("reading %s at %s: %w", orPath(f.Previous, f.Path), short(cmp.MergeBase), err))
			continue
		}
		if f.Status != "removed" {
			data, err := fs.ReadFile(headFS, f.Path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				fail(fmt.Errorf("reading %s at %s: %w", f.Path, short(pr.HeadSHA), err))
				continue
			}
			pair.Head = data
		}
		kpairs = append(kpairs, pair)
	}
	images, err := pin.DiffImages(kpairs)
	if err != nil {
		fail(err)
	}
	in.Changes = append(changes, images...)
	in.Kept = keptDeclarations(ctx, baseRead, mb.Files, files, in.Changes)
	for _, f := range files {
		switch {
		case f.Previous != "":
			in.Deleted, in.Added = append(in.Deleted, f.Previous), append(in.Added, f.Path)
		case f.Status == "removed":
			in.Deleted = append(in.Deleted, f.Path)
		case f.Status == "added":
			in.Added = append(in.Added, f.Path)
		}
	}
	slices.Sort(in.Deleted)
	slices.Sort(in.Added)

	// The warning section of the check run: explained pins the changed
	// manifests hold that no ADR records, and pinned-by markers citing ADRs
	// that do not exist (pinbot pins --audit covers the whole tree).
	heads := map[string][]byte{}
	for _, f := range files {
		if f.Status == "removed" || !pin.IsManifest(f.Path) {
			continue
		}
		if data, err := fs.ReadFile(headFS, f.Path); err == nil {
			heads[f.Path] = data
		}
	}
	for _, f := range audit.Files(heads, records) {
		in.Warnings = append(in.Warnings, adr.Warning{Path: f.Manifest, Line: f.Line, Message: "audit: " + f.Message})
	}
}

// linkShaped reports whether a changed manifest's or resolution input's
// head content could be a symbolic link's target: not empty, one line, no
// newline at its end. Real manifests end with a newline; a manifest that
// does not merely costs one tree read.
func linkShaped(ctx context.Context, head fs.FS, files []source.ChangedFile, kube func(string) bool) bool {
	for _, f := range files {
		if f.Status == "removed" || !(pin.IsManifest(f.Path) || kube(f.Path) || pin.IsInput(f.Path)) {
			continue
		}
		data, err := fs.ReadFile(head, f.Path)
		if err == nil && len(data) > 0 && len(data) <= 4096 && !bytes.ContainsRune(data, '\n') {
			return true
		}
	}
	return false
}

// keptDeclarations returns, for the packages a pull request removes from a
// manifest, their declarations in the manifests it does not touch: those
// are the same at merge base and head, so they are read from the merge
// base's tree (the archive already holds them; nothing is read when
// nothing is removed). A manifest that cannot be read keeps nothing: the
// removal then stands, and pinbot fails closed.
func keptDeclarations(ctx context.Context, r *source.Reader, tree map[string]source.Entry, files []source.ChangedFile, changes []pin.Change) []pin.Change {
	removed := map[string]bool{} // ecosystem and package
	ecos := map[pin.Ecosystem]bool{}
	for _, c := range changes {
		if c.New == "" && c.Old != "" {
			removed[string(c.Ecosystem)+"\x00"+c.Package] = true
			ecos[c.Ecosystem] = true
		}
	}
	if len(removed) == 0 {
		return nil
	}
	touched := map[string]bool{}
	for _, f := range files {
		touched[f.Path] = true
		if f.Previous != "" {
			touched[f.Previous] = true
		}
	}
	var paths, shas []string
	for p, e := range tree {
		if f, ok := pin.FormatOf(p); ok && ecos[f.Ecosystem] && f.Readable() && !touched[p] {
			paths = append(paths, p)
			shas = append(shas, e.SHA)
		}
	}
	slices.Sort(paths)
	r.Prefetch(ctx, shas)
	var kept []pin.Change
	for _, p := range paths {
		data, err := r.Blob(ctx, tree[p])
		if err != nil {
			continue
		}
		ds, _, err := pin.Declarations(p, data)
		if err != nil {
			continue
		}
		for _, d := range ds {
			if removed[string(d.Ecosystem)+"\x00"+d.Package] {
				kept = append(kept, pin.Change{Ecosystem: d.Ecosystem, Package: d.Package, Manifest: p, Old: d.Value, New: d.Value, Resolved: d.Resolved})
			}
		}
	}
	return kept
}

func isPrevious(files []source.ChangedFile, p string) bool {
	for _, f := range files {
		if f.Previous == p {
			return true
		}
	}
	return false
}

func orPath(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// headRecords reads the decision records the pull request adds or changes,
// at its head, and returns the warnings of those it leaves unreadable or of
// an unknown status, marked Head: the pull request is still judged by the
// base's records, so a head edit can only make the verdict error, never
// lift a pin (issue 22, ADR 0262). A warning the base already has for the
// record is not repeated.
func headRecords(ctx context.Context, read *source.Reader, files []source.ChangedFile, in *enforce.Input) []adr.Warning {
	var want []source.ChangedFile
	for _, f := range files {
		if f.Status != "removed" && f.SHA != "" && under(f.Path, in.Config.ADRPaths) && adr.IsADRFile(f.Path) {
			want = append(want, f)
		}
	}
	if len(want) == 0 {
		return nil
	}
	shas := make([]string, len(want))
	for i, f := range want {
		shas[i] = f.SHA
	}
	read.Prefetch(ctx, shas)
	base := map[string]bool{}
	for _, w := range in.Warnings {
		base[w.String()] = true
	}
	var out []adr.Warning
	for _, f := range want {
		data, err := read.Blob(ctx, source.Entry{SHA: f.SHA})
		var ws []adr.Warning
		switch {
		case err != nil:
			ws = []adr.Warning{{Path: f.Path, Message: "cannot be read at the head of this pull request: " + err.Error(), Unreadable: true}}
		case len(data) > adr.MaxFileSize:
			ws = []adr.Warning{{Path: f.Path, Message: fmt.Sprintf("larger than %d bytes at the head of this pull request; pinbot does not read it", adr.MaxFileSize), Unreadable: true}}
		default:
			_, ws = adr.Parse(f.Path, data)
		}
		for _, w := range ws {
			if (!w.Unreadable && len(w.Doubtful) == 0) || base[w.String()] {
				continue
			}
			w.Head = true
			out = append(out, w)
		}
	}
	return out
}

// anyNamePinned reports whether a record pins a package of an ecosystem
// whose files may read files of any name (pin.ReadsAnyName), or a package
// of no known ecosystem (enforced by name in every ecosystem).
func anyNamePinned(records []adr.Record) bool {
	for _, r := range records {
		for _, p := range r.Pins {
			if pin.ReadsAnyName(p.Ecosystem) || p.Ecosystem == "" {
				return true
			}
		}
	}
	return false
}
