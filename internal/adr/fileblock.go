package adr

import (
	"regexp"
	"strconv"
	"strings"
)

// File-named blocks (ADR 0391): a part that carries the decision out
// ("Implementation", "Rollout", "Phase 2: Deploy the collector") often
// prescribes a file of the repository as a code block whose first line
// names it ("# infra/docker-compose.otel.yml", "// web/package.json").
// Such a block is read by the registered reader of its format, as any
// snippet; a version it gives is a pin only where the repository's file
// of that path pins the package at exactly that version: the record and
// the file agree on one release. Everything else the block gives is
// listed by pins --explain with why.

// fileComment is a block's first line naming a file: a comment marker,
// then a path whose last part is a manifest's name or extension.
var fileComment = regexp.MustCompile(`^\s*(?:#|//|--|<!--|;)\s*(?:file:\s*)?((?:[\w.-]+/)*(?:[\w.-]*(?:Dockerfile|Gemfile|Containerfile)|[\w.-]+\.(?:ya?ml|json|toml|txt|xml|props|csproj|fsproj|gradle|kts|mod|tf|Dockerfile)))\s*(?:-->)?\s*$`)

// fileBlocks returns the lines of body (1-based within it) where a fenced
// block named by its first line starts and ends, with the file it names.
func fileBlocks(body string) []namedBlock {
	var out []namedBlock
	lines := strings.Split(body, "\n")
	for i := 0; i < len(lines); i++ {
		fence := fenceOpen(strings.TrimSpace(lines[i]))
		if fence == "" {
			continue
		}
		j := i + 1
		for j < len(lines) && !fenceCloses(strings.TrimSpace(lines[j]), fence) {
			j++
		}
		if i+1 < j {
			if m := fileComment.FindStringSubmatch(lines[i+1]); m != nil {
				out = append(out, namedBlock{file: m[1], from: i + 1, to: j + 1})
			}
		}
		i = j
	}
	return out
}

// namedBlock is a block from line from to line to (its fences, 1-based in
// the section's body) whose first line names file.
type namedBlock struct {
	file     string
	from, to int
}

// filePart reads the file-named blocks of a section outside the decision
// that carries it out: candidates flagged with the file, for Ground.
func (p *parser) filePart(s section, offset int, named []namedBlock) {
	nm, nd := len(p.rec.Clues.mentions), len(p.rec.Clues.decision)
	p.phrasings(s, offset)
	blocks := p.blockPins
	p.blockPins = nil
	p.rec.Clues.decision = p.rec.Clues.decision[:nd]
	p.rec.Clues.mentions = p.rec.Clues.mentions[:nm]
	for _, b := range blocks {
		for _, nb := range named {
			first, last := s.line+offset+nb.from-1, s.line+offset+nb.to-1
			if b.Source.Line > first && b.Source.Line < last && b.Version != "" {
				p.rec.Clues.mentions = append(p.rec.Clues.mentions, mention{line: b.Source.Line, names: []string{b.Package}, version: b.Version, file: nb.file, prescribed: b.Ecosystem})
			}
		}
	}
}

// fileMention settles a candidate of a file-named block (ADR 0391).
func (g *grounder) fileMention(m mention, name string) {
	for _, d := range exactAt(g.idx.lookup(name), m.version) {
		if d.Manifest == m.file || strings.HasSuffix(d.Manifest, "/"+m.file) || strings.HasSuffix(m.file, "/"+d.Manifest) {
			if !g.hasPin(d.Package, m.version) {
				g.take(d.Ecosystem, d.Package, heldVersion(d, m.version), m.line, "confirmed: the record prescribes "+m.file+" with "+name+" "+m.version+", and the repository's "+d.Manifest+":"+strconv.Itoa(d.Line)+" pins "+d.Package+" at "+d.Exact+" (ADR 0391)")
			}
			return
		}
	}
	g.reject(m.prescribed, name, m.version, m.line, "a version in a block that prescribes "+m.file+", outside the decision: a pin only where the repository's "+m.file+" pins the package at exactly that version (ADR 0391)")
}
