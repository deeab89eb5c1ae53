package adr

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Declarations only grounding reads (ADR 0362): files internal/pin reads
// no dependencies from still say which package a name in a record is and
// at which version the repository holds it. They confirm candidates and
// feed the audit of unread pins; they are never read as manifests of a
// change. (Gradle plugins blocks were read here too; internal/pin's
// Gradle reader reads them now, ADR 0369.)

var (
	// argoKey is a key of an Argo CD Application source.
	argoKey = regexp.MustCompile(`^(\s*)(?:-\s+)?(repoURL|chart|targetRevision)\s*:\s*["']?([^"'#\s]+)["']?\s*(?:#.*)?$`)
	// argoName is the name of the Application or list entry a source is
	// under ("- name: aieg-crd", metadata's "name:"), or its Helm
	// releaseName.
	argoName = regexp.MustCompile(`^(\s*(?:-\s+)?)(name|releaseName)\s*:\s*["']?([A-Za-z0-9][A-Za-z0-9._-]*)["']?\s*(?:#.*)?$`)
)

// maxGroundingFiles bounds the files Declared reads for grounding only:
// on GitHub each is a request.
const maxGroundingFiles = 64

// groundingFile reports whether Declared reads p for grounding only: a
// YAML file named as Argo CD values and
// Applications are (values*.yaml, *application*.yaml, *app*.yaml, or any
// YAML file under a folder named argocd or argo-cd).
func groundingFile(p string) bool {
	b := strings.ToLower(path.Base(p))
	if !strings.HasSuffix(b, ".yaml") && !strings.HasSuffix(b, ".yml") {
		return false
	}
	lp := strings.ToLower(p)
	return strings.HasPrefix(b, "values") || strings.Contains(b, "app") || strings.Contains(lp, "argocd/") || strings.Contains(lp, "argo-cd/")
}

// groundingOnly reads the declarations of a file that is not a manifest
// pin.Declarations reads: the chart sources of Argo CD Applications (a
// values file or an Application manifest: repoURL, chart,
// targetRevision).
func groundingOnly(p string, data []byte) []pin.Declaration {
	b := path.Base(p)
	switch {
	case (strings.HasSuffix(b, ".yaml") || strings.HasSuffix(b, ".yml")) && strings.Contains(string(data), "targetRevision"):
		return argoSources(p, string(data))
	case gradleScript(p):
		return scriptCoordinates(p, string(data))
	}
	return nil
}

// gradleScript reports whether p is a Gradle build script.
func gradleScript(p string) bool {
	b := strings.ToLower(path.Base(p))
	return strings.HasSuffix(b, ".gradle") || strings.HasSuffix(b, ".gradle.kts")
}

// scriptDep is a dependency a build script declares as one string
// literal: implementation 'g:a:1.2.3', api("g:a:1.2.3"), platform("g:a:1.2.3").
// A version built from a variable ("$v", "${v}") is not read.
var scriptDep = regexp.MustCompile(`^\s*(?:implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly|testCompileOnly|annotationProcessor|kapt|ksp|classpath|developmentOnly|androidTestImplementation|debugImplementation|releaseImplementation|compile|testCompile)\s*\(?\s*(?:(?:platform|enforcedPlatform)\s*\(\s*)?["']([A-Za-z0-9_.-]+):([A-Za-z0-9_.-]+):([A-Za-z0-9_.+\[\]!-]+)["']`)

// scriptCoordinates returns the dependencies a Gradle build script
// declares as string literals at an exact version. internal/pin reads
// only a script's plugins block and refuses the rest, so a change to these
// lines fails closed; here they only say which package a name in a record
// is and at which version the repository holds it (ADR 0399).
func scriptCoordinates(p, text string) []pin.Declaration {
	var out []pin.Declaration
	for i, ln := range strings.Split(text, "\n") {
		m := scriptDep.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		ex := pin.ExactVersion(pin.Gradle, m[3])
		if ex == "" {
			continue
		}
		out = append(out, pin.Declaration{Ecosystem: pin.Gradle, Package: pin.NormalizeName(pin.Gradle, m[1]+":"+m[2]), Manifest: p, Value: m[3], Exact: ex, Line: i + 1})
	}
	return out
}

// argoSources returns the Helm charts Argo CD Application sources hold at
// an exact targetRevision: the chart is the source's chart key, else the
// last path element of an oci:// repoURL.
func argoSources(p, text string) []pin.Declaration {
	type src struct {
		indent           int
		repo, chart, rev string
		revLine          int
		aliases          []string
	}
	var out []pin.Declaration
	// The name of the entry being read and its indent: an Application's
	// or list entry's name is above its source, less indented (ADR 0381).
	entry, entryIndent := "", -1
	flush := func(s src) {
		name := s.chart
		if name == "" && strings.HasPrefix(s.repo, "oci://") {
			name = s.repo[strings.LastIndexByte(s.repo, '/')+1:]
		}
		if name == "" || s.rev == "" || !exactVer.MatchString(s.rev) || partialVersion(s.rev) {
			return
		}
		d := pin.Declaration{Ecosystem: pin.Helm, Package: pin.NormalizeName(pin.Helm, name), Manifest: p, Value: s.rev, Exact: s.rev, Line: s.revLine}
		for _, a := range s.aliases {
			if a != "" && !strings.EqualFold(a, d.Package) && !slices.Contains(d.Aliases, strings.ToLower(a)) {
				d.Aliases = append(d.Aliases, strings.ToLower(a))
			}
		}
		out = append(out, d)
	}
	cur := src{indent: -1}
	for i, ln := range strings.Split(text, "\n") {
		if m := argoName.FindStringSubmatch(ln); m != nil {
			ind := len(m[1])
			switch {
			case m[2] == "releaseName" && cur.indent >= 0 && ind > cur.indent:
				cur.aliases = append(cur.aliases, m[3])
			case m[2] == "name" && (cur.indent < 0 || ind < cur.indent):
				entry, entryIndent = m[3], ind
			}
			continue
		}
		m := argoKey.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		ind := len(m[1])
		if strings.Contains(ln, "- ") && strings.Index(ln, "- ") < strings.Index(ln, m[2]) {
			ind += 2
		}
		if cur.indent >= 0 && ind != cur.indent {
			flush(cur)
			cur = src{indent: -1}
		}
		if m[2] == "repoURL" && cur.repo != "" {
			flush(cur)
			cur = src{indent: -1}
		}
		if cur.indent < 0 && entryIndent >= 0 && entryIndent < ind {
			cur.aliases = append(cur.aliases, entry)
		}
		cur.indent = ind
		switch m[2] {
		case "repoURL":
			cur.repo = m[3]
		case "chart":
			cur.chart = m[3]
		case "targetRevision":
			cur.rev, cur.revLine = m[3], i+1
		}
	}
	if cur.indent >= 0 {
		flush(cur)
	}
	return out
}

// ReadForGrounding reports whether Declared reads p: a manifest, or a
// file read for grounding only. A caller that shows Declared part of a
// tree (pinbot's sources) must show these, and key what it caches of the
// records by their content, or it grounds fewer pins than `pinbot pins`
// does on the whole tree.
func ReadForGrounding(p string) bool { return pin.IsManifest(p) || groundingFile(p) }

// fromCatalog reports whether a package.json value takes its version from
// a pnpm catalog ("catalog:", "catalog:react19"): the catalog's entry, not
// this line, says the version, so the line never disagrees with it.
func fromCatalog(d pin.Declaration) bool {
	return d.Ecosystem == pin.NPM && strings.HasPrefix(strings.TrimSpace(d.Value), "catalog:")
}
