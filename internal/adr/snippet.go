package adr

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Snippets: a fenced or indented block inside the decision is read by the
// reader that reads its format as a manifest (internal/pin's registry rows,
// through pin.Declarations), so that a csproj, a Dockerfile, a Compose file
// or a Chart.yaml in a record means what it means in the repository (issue
// 35, item 1; ADR 0316). A block whose format has no registered reader is
// not understood, and pins --explain says so.

// Block is one code block of a decision: its info string, its text and the
// 1-based file line of its first content line.
type block struct {
	info string
	text string
	line int
	// indented is true for an indented code block, which has no info
	// string: only a reader that understands its content reads it.
	indented bool
}

// snippetFiles are the file names, in the order tried, whose registered
// readers read a block with this info string. nil means no reader is
// known for it; unlabelled blocks are asked of every reader in
// unlabelledFiles.
var snippetFiles = []struct {
	re    *regexp.Regexp
	files []string
}{
	{regexp.MustCompile(`^(?:go\.mod|gomod|go|mod|.*/go\.mod)$`), []string{"go.mod"}},
	{regexp.MustCompile(`^go\.work$`), []string{"go.work"}},
	{regexp.MustCompile(`^(?:json|jsonc|json5|package\.json|.*/package\.json|npm)$`), []string{"package.json", "composer.json", "dotnet-tools.json"}},
	{regexp.MustCompile(`^(?:composer|composer\.json)$`), []string{"composer.json"}},
	{regexp.MustCompile(`^(?:xml|pom|pom\.xml|maven|.*/pom\.xml)$`), []string{"pom.xml", "snippet.csproj", "packages.config"}},
	{regexp.MustCompile(`^(?:csproj|fsproj|vbproj|msbuild|nuget|props|targets|directory\.(?:packages|build)\.props|.*\.(?:cs|fs|vb)proj)$`), []string{"snippet.csproj", "Directory.Packages.props", "packages.config"}},
	{regexp.MustCompile(`^(?:toml|cargo|cargo\.toml)$`), []string{"Cargo.toml", "pyproject.toml", "libs.versions.toml", "Pipfile"}},
	{regexp.MustCompile(`^(?:pyproject|pyproject\.toml)$`), []string{"pyproject.toml"}},
	{regexp.MustCompile(`^(?:libs\.versions\.toml|.*\.versions\.toml)$`), []string{"libs.versions.toml"}},
	{regexp.MustCompile(`^(?:dockerfile|docker|containerfile)$`), []string{"Dockerfile"}},
	{regexp.MustCompile(`^(?:compose|docker-compose|(?:docker-)?compose\.ya?ml)$`), []string{"docker-compose.yml"}},
	{regexp.MustCompile(`^(?:chart\.yaml|chart|helm)$`), []string{"Chart.yaml"}},
	{regexp.MustCompile(`^(?:yaml|yml)$`), []string{"docker-compose.yml", "Chart.yaml", ".github/workflows/snippet.yml", "pnpm-workspace.yaml"}},
	{regexp.MustCompile(`^(?:pnpm-workspace|pnpm-workspace\.ya?ml|pnpm)$`), []string{"pnpm-workspace.yaml"}},
	{regexp.MustCompile(`^(?:hcl|terraform|tf|tofu|opentofu)$`), []string{"snippet.tf"}},
	{regexp.MustCompile(`^(?:requirements|requirements\.txt|pip|constraints\.txt)$`), []string{"requirements.txt"}},
	{regexp.MustCompile(`^(?:ruby|rb|gemfile)$`), []string{"Gemfile"}},
	{regexp.MustCompile(`^(?:gradle|groovy|kotlin|kts|.*\.gradle|.*\.gradle\.kts)$`), []string{"build.gradle.kts"}},
	{regexp.MustCompile(`^(?:helmfile|helmfile\.ya?ml)$`), []string{"helmfile.yaml"}},
}

// unlabelledFiles are the readers asked, in order, about a block without an
// info string; the first that reads it without error and finds a
// dependency decides its format.
var unlabelledFiles = []string{"Dockerfile", "go.mod", "package.json", "pom.xml", "snippet.csproj", "snippet.tf", "docker-compose.yml", "Chart.yaml", ".github/workflows/snippet.yml", "requirements.txt", "Gemfile", "Cargo.toml"}

// notManifest are info strings of blocks that are code or prose in a
// language no manifest is written in: they are neither read nor listed as
// not understood.
var notManifest = map[string]bool{"makefile": true, "make": true, "mk": true, "mermaid": true, "diff": true, "patch": true}

// infoWord returns a block's info string as a lower-case format word: its
// first word, braces and a leading dot stripped ("{.yaml}" is "yaml").
func infoWord(info string) string {
	info = strings.ToLower(strings.TrimSpace(info))
	info = strings.Trim(info, "{}")
	if f := strings.Fields(info); len(f) > 0 {
		info = f[0]
	}
	info = strings.TrimPrefix(info, ".")
	if k, v, ok := strings.Cut(info, ":"); ok && v != "" && (k == "title" || k == "file") {
		info = v
	}
	return info
}

// filesFor returns the file names whose readers read a block labelled word,
// and whether the label names a format at all.
func filesFor(word string) ([]string, bool) {
	if word == "" {
		return unlabelledFiles, true
	}
	for _, s := range snippetFiles {
		if s.re.MatchString(word) {
			return s.files, true
		}
	}
	// A label that is itself a manifest's name (".terraform.lock.hcl",
	// "Gemfile.lock", "uv.lock") is read by that file's reader.
	if pin.IsManifest(word) {
		return []string{word}, true
	}
	return nil, false
}

// variants returns the block's text as given and, for fragments readers
// reject, wrapped the way the fragment's file wraps it: a <dependency> list
// in <project>, an ItemGroup in <Project>, required_providers in terraform
// {}, a JSON object's members in braces.
func variants(file, text string) []string {
	out := []string{text}
	t := strings.TrimSpace(text)
	switch {
	case file == "pom.xml" && !strings.Contains(t, "<project"):
		// A list of elements, comments between them ("<!-- JWT -->"),
		// has no root: its list's element and the project are it.
		switch {
		case strings.Contains(t, "<dependency>") && !strings.Contains(t, "<dependencies>"):
			t = "<dependencies>" + t + "</dependencies>"
		case strings.Contains(t, "<plugin>") && !strings.Contains(t, "<plugins>"):
			t = "<build><plugins>" + t + "</plugins></build>"
		}
		if strings.HasPrefix(t, "<plugins>") {
			t = "<build>" + t + "</build>"
		}
		out = append(out, "<project>"+t+"</project>")
	case strings.HasSuffix(file, "proj") || strings.HasSuffix(file, ".props"):
		if !strings.Contains(t, "<Project") {
			if !strings.Contains(t, "<ItemGroup") {
				t = "<ItemGroup>" + t + "</ItemGroup>"
			}
			out = append(out, "<Project>"+t+"</Project>")
		}
	case strings.HasSuffix(file, ".tf") && strings.HasPrefix(t, "required_providers"):
		out = append(out, "terraform {\n"+text+"\n}\n")
	case strings.HasSuffix(file, ".json"):
		// JSON as records write it: comments and trailing commas, members
		// without their braces, a dependencies object without its key.
		t = strings.TrimSpace(jsonComment.ReplaceAllString(t, ""))
		t = trailingComma.ReplaceAllString(t, "$1")
		t = strings.TrimSuffix(t, ",")
		if !strings.HasPrefix(t, "{") {
			t = "{" + t + "}"
		}
		out = append(out, t)
		if !jsonSection.MatchString(t) {
			out = append(out, `{"dependencies": `+t+"}", `{"require": `+t+"}")
		}
	case file == "Cargo.toml" && !tomlTable.MatchString(t):
		out = append(out, "[dependencies]\n"+text)
	case file == "pyproject.toml" && !tomlTable.MatchString(t):
		return out
	}
	return out
}

// readBlock reads a code block of the decision with the registered readers
// and returns the exactly pinned declarations as pins; ranges and partial
// versions are rejected candidates. A block no reader knows, or that the
// reader of its label cannot read, is noted for pins --explain.
func (p *parser) readBlock(b block) []pin.Pin {
	word := infoWord(b.info)
	if notManifest[word] {
		return nil
	}
	files, known := filesFor(word)
	if named, rest, ok := namedFile(b); ok {
		// "# worker/requirements.txt" over the block: the file's own
		// reader first, whatever the info string says (ADR 0391).
		if pins := p.readBlock(rest); len(pins) > 0 {
			return pins
		}
		files, known = append([]string{named}, files...), true
	}
	if word == "helmfile" || word == "helmfile.yaml" || word == "helmfile.yml" {
		if pins, ok := p.helmfile(b); ok {
			return pins
		}
	}
	var lastErr error
	for _, f := range files {
		if format, ok := pin.FormatOf(f); !ok || !format.Readable() {
			continue
		}
		for _, text := range variants(f, b.text) {
			ds, skipped, err := readSnippet(f, text)
			if err != nil {
				lastErr = err
				continue
			}
			if len(ds) == 0 {
				continue
			}
			for _, sk := range skipped {
				at := sk.Line - 1 - (strings.Count(text, "\n") - strings.Count(b.text, "\n"))
				c := candidate("", "", b.line+at)
				if bl := strings.Split(b.text, "\n"); at >= 0 && at < len(bl) {
					c.Package = strings.TrimSpace(bl[at])
				}
				p.reject(c, fmt.Sprintf("a line the %s reader cannot read in the snippet (%v): not a pin", f, sk.Err))
			}
			return p.declared(ds, b)
		}
	}
	if word != "" && (word == "gradle" || word == "groovy" || word == "kotlin" || word == "kts" || strings.HasSuffix(word, ".gradle") || strings.HasSuffix(word, ".gradle.kts")) {
		// Gradle build scripts are code: internal/pin registers no reader
		// for them, so the coordinates and versions they spell are read
		// here, until one is registered (ADR 0316).
		return p.gradleScript(b)
	}
	if b.indented || !versionish.MatchString(b.text) {
		// An indented block is often prose or a list's continuation, and a
		// block without a version pins nothing: neither is worth a note.
		return nil
	}
	why := "a code block in a format no registered reader knows"
	if word != "" {
		why = fmt.Sprintf("a %q code block, a format no registered reader knows", word)
	}
	if known && lastErr != nil {
		why = fmt.Sprintf("a %q code block its format's reader cannot read (%v)", word, lastErr)
	}
	p.rec.Rejected = append(p.rec.Rejected, Candidate{Path: p.rec.Path, Line: b.line, Why: "not understood: " + why + "; its versions are not pins. Write the pin in the format's own file syntax with its info string (```go.mod, ```csproj, ```dockerfile …) or in front matter pins:"})
	return nil
}

var (
	tomlTable     = regexp.MustCompile(`(?m)^\s*\[`)
	jsonComment   = regexp.MustCompile(`(?m)\s//[^"\n]*$|^\s*//.*$`)
	trailingComma = regexp.MustCompile(`,(\s*[}\]])`)
	jsonSection   = regexp.MustCompile(`"(?:dependencies|devDependencies|peerDependencies|optionalDependencies|overrides|resolutions|require|require-dev|tools)"\s*:`)
)

// readSnippet reads text as the file f. A line the reader rejects (a
// property the snippet does not define, "latest") is blanked and the rest
// read again, a few times: one bad line of a snippet does not hide the
// others, and each is reported.
func readSnippet(f, text string) ([]pin.Declaration, []*manifest.ReadError, error) {
	var skipped []*manifest.ReadError
	lines := strings.Split(text, "\n")
	for range 8 {
		ds, ok, err := pin.Declarations(f, []byte(strings.Join(lines, "\n")))
		if err == nil {
			if !ok {
				return nil, nil, nil
			}
			return ds, skipped, nil
		}
		var re *manifest.ReadError
		if !errors.As(err, &re) || re.Line < 1 || re.Line > len(lines) || strings.TrimSpace(lines[re.Line-1]) == "" {
			return nil, nil, err
		}
		skipped = append(skipped, re)
		lines[re.Line-1] = ""
	}
	return nil, nil, fmt.Errorf("too many lines its reader cannot read")
}

// versionish finds a dotted version anywhere in a block.
var versionish = regexp.MustCompile(`\b[0-9]+\.[0-9]+`)

// declared turns a reader's declarations of a block into pins: the ones
// with an exact, full version. Others are rejected candidates.
func (p *parser) declared(ds []pin.Declaration, b block) []pin.Pin {
	var out []pin.Pin
	for _, d := range ds {
		line := b.line
		if d.Line > 0 {
			line = b.line + d.Line - 1
		}
		ver := d.Exact
		if d.Ecosystem == pin.Actions {
			// A workflow's pin is the commit its SHA names; the comment's
			// tag is only what it says.
			if ref := strings.Fields(d.Value); len(ref) > 0 && fullSHA.MatchString(ref[0]) {
				ver = ref[0]
			} else {
				ver = ""
			}
		}
		c := candidate(d.Package, d.Value, line)
		c.Ecosystem = d.Ecosystem
		switch {
		case ver == "":
			p.reject(c, fmt.Sprintf("a range, a tag or a moving reference by %s's rules (%q), not one exact version: write the exact version to pin it", d.Ecosystem, d.Value))
		case partialVersion(ver):
			p.reject(c, "a partial version (fewer than three numbers and no digest): "+d.Value+" is not one exact release; write the full version to pin it")
		default:
			pn := pin.Pin{Ecosystem: d.Ecosystem, Package: d.Package, Version: ver}
			pn.Source.Line = line
			p.raw = append(p.raw, pn)
		}
	}
	return out
}

// partialVersion reports whether v names a release line rather than one
// release: fewer than three numeric parts ("2.7", "v5", "16") and no
// digest or commit. A partial version is never an exact pin (issue 35).
func partialVersion(v string) bool {
	if strings.Contains(v, "@sha256:") || fullSHA.MatchString(v) {
		return false
	}
	v = strings.TrimPrefix(strings.TrimPrefix(v, "="), "v")
	num := v
	if i := strings.IndexAny(num, "-+_"); i >= 0 {
		num = num[:i]
	}
	parts := strings.Split(num, ".")
	n := 0
	for _, s := range parts {
		if s == "" || strings.Trim(s, "0123456789") != "" {
			break
		}
		n++
	}
	return n < 3
}

// namedFile returns the manifest file name a block's first line names
// ("# infra/docker-compose.otel.yml", "// web/package.json") when a
// registered reader reads files of that name, and the block without that
// line, its info string the file's name, so that the file's reader reads
// it (ADR 0391).
func namedFile(b block) (string, block, bool) {
	first, rest, _ := strings.Cut(b.text, "\n")
	m := fileComment.FindStringSubmatch(first)
	if m == nil {
		return "", block{}, false
	}
	name := path.Base(m[1])
	if f, ok := pin.FormatOf(name); !ok || !f.Readable() || infoWord(b.info) == strings.ToLower(name) {
		return "", block{}, false
	}
	return name, block{info: name, text: rest, line: b.line + 1, indented: b.indented}, true
}
