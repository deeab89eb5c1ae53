package pin

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
	"go.yaml.in/yaml/v3"
)

// BotUpdate is one dependency update that an update bot says it makes, read
// from its commit message, PR body or title. It is a cross-check only: the
// manifests are the evidence, because titles and bodies are configurable and
// anyone can write them.
type BotUpdate struct {
	// Ecosystem is the ecosystem when the text reveals it, else empty.
	Ecosystem Ecosystem `json:"ecosystem,omitempty"`
	// Package is the dependency's name as the bot wrote it.
	Package string `json:"package"`
	// From and To are the versions or constraints as written, empty when the
	// text does not say.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Directory is the manifest directory a Dependabot title names
	// ("/app" for "... in /app"), empty when not given.
	Directory string `json:"directory,omitempty"`
	// Source says where the update was read: "dependabot-commit",
	// "renovate-body" or "title".
	Source string `json:"source"`
}

// Sources of BotUpdate values.
const (
	SourceDependabotCommit = "dependabot-commit"
	SourceRenovateBody     = "renovate-body"
	SourceTitle            = "title"
)

// EcosystemFromBranch maps a Dependabot head branch
// ("dependabot/pip/app/boto3-1.42.86", "dependabot/go_modules/...") to its
// ecosystem, or "" when the branch does not say.
func EcosystemFromBranch(branch string) Ecosystem {
	parts := strings.FieldsFunc(branch, func(r rune) bool { return r == '/' || r == '|' || r == '-' })
	if len(parts) < 2 || parts[0] != "dependabot" {
		return ""
	}
	if e, ok := ParseEcosystem(parts[1]); ok {
		return e
	}
	return ""
}

var (
	// "Bumps [name](url) from A to B." and "Bump name from A to B".
	bumpsLinkRE = regexp.MustCompile(`(?m)Bumps? \[([^\]]+)\]\([^)]*\) from (\S+) to (\S+?)\.?(?:\s|$)`)
	// "Updates `name` from A to B" in grouped messages.
	updatesTickRE = regexp.MustCompile("(?m)^Updates `([^`]+)` from (\\S+) to (\\S+?)\\.?$")
	// "Update name requirement from A to B" on the first line.
	requirementRE = regexp.MustCompile(`(?mi)^(?:[^\n:]*:\s*)?update (\S+) requirement from (.+?) to (.+?)(?: in /\S*)?$`)
	bumpPlainRE   = regexp.MustCompile(`(?mi)^(?:[^\n:]*:\s*)?bump (\S+) from (\S+) to (\S+?)(?: in .*)?$`)
)

// ParseDependabotCommit reads the updates a Dependabot commit message
// declares in its YAML metadata block ("---\nupdated-dependencies:\n...\n..."),
// taking the versions from "dependency-version" or, when absent, from the
// prose ("Bumps [x](...) from A to B", "Updates `x` from A to B", "Update x
// requirement from A to B"). Only the first block counts, as Dependabot's own
// tooling reads it. A message without a block gives no updates and no
// error; a malformed block is an error naming its line in the message.
func ParseDependabotCommit(msg string) ([]BotUpdate, error) {
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	start := -1
	for i := 0; i+1 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "updated-dependencies:") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil, nil
	}
	end := len(lines)
	for j := start + 1; j < len(lines); j++ {
		if t := strings.TrimSpace(lines[j]); t == "..." || t == "---" {
			end = j
			break
		}
	}
	var doc struct {
		Updated []struct {
			Name    string `yaml:"dependency-name"`
			Version string `yaml:"dependency-version"`
		} `yaml:"updated-dependencies"`
	}
	block := strings.Join(lines[start:end], "\n")
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		re := manifest.YAMLError("commit message", start+1, err).(*ReadError)
		return nil, fmt.Errorf("reading Dependabot metadata at line %d: %w", re.Line, re.Err)
	}
	// Versions from the prose, in order of appearance per name.
	prose := map[string][][2]string{}
	for _, re := range []*regexp.Regexp{bumpsLinkRE, updatesTickRE, requirementRE, bumpPlainRE} {
		for _, m := range re.FindAllStringSubmatch(strings.Join(lines[:start], "\n"), -1) {
			k := strings.ToLower(m[1])
			prose[k] = append(prose[k], [2]string{strings.TrimSpace(m[2]), strings.TrimSpace(m[3])})
		}
	}
	used := map[string]int{}
	var out []BotUpdate
	for i, u := range doc.Updated {
		if strings.TrimSpace(u.Name) == "" {
			return nil, fmt.Errorf("reading Dependabot metadata: entry %d has no dependency-name", i+1)
		}
		b := BotUpdate{Package: strings.TrimSpace(u.Name), To: strings.TrimSpace(u.Version), Source: SourceDependabotCommit}
		k := strings.ToLower(b.Package)
		if vs := prose[k]; used[k] < len(vs) {
			b.From = vs[used[k]][0]
			if b.To == "" {
				b.To = vs[used[k]][1]
			}
			used[k]++
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, errors.New("reading Dependabot metadata: updated-dependencies lists nothing")
	}
	return out, nil
}

var (
	mdLinkRE     = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	backtickRE   = regexp.MustCompile("`([^`]*)`")
	datasourceRE = regexp.MustCompile(`/badges/[a-z]+/([a-z-]+)/`)
)

// ParseRenovateBody reads the update table of a Renovate PR body: rows of a
// Markdown table whose header has "Package" and "Change" columns, with
// changes written "`A` -> `B`" or "`A` → `B`". The ecosystem comes from the
// Merge Confidence badge's datasource or a "Type" of "action" when present.
// The similar "| Package | From | To |" table of grouped Dependabot PRs is
// read too. Rows without a version are skipped, and text that is not such a
// table is ignored.
func ParseRenovateBody(body string) []BotUpdate {
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	var out []BotUpdate
	for i := 0; i+1 < len(lines); i++ {
		hdr := tableCells(lines[i])
		if hdr == nil || !isSeparatorRow(lines[i+1]) {
			continue
		}
		col := map[string]int{}
		for j, h := range hdr {
			col[strings.ToLower(strings.TrimSpace(h))] = j
		}
		pkgCol, okP := col["package"]
		chCol, okC := col["change"]
		fromCol, okF := col["from"]
		toCol, okT := col["to"]
		if !okP || !(okC || okF && okT) {
			continue
		}
		typeCol, okType := col["type"]
		i += 2
		for ; i < len(lines); i++ {
			cells := tableCells(lines[i])
			if cells == nil {
				break
			}
			get := func(j int) string {
				if j < len(cells) {
					return strings.TrimSpace(cells[j])
				}
				return ""
			}
			name := cellText(get(pkgCol))
			if name == "" {
				continue
			}
			u := BotUpdate{Package: name, Source: SourceRenovateBody}
			if okC {
				vals := backtickRE.FindAllStringSubmatch(get(chCol), -1)
				switch len(vals) {
				case 0:
				case 1:
					u.To = strings.TrimSpace(vals[0][1])
				default:
					u.From, u.To = strings.TrimSpace(vals[0][1]), strings.TrimSpace(vals[len(vals)-1][1])
				}
			} else {
				u.From, u.To = cellText(get(fromCol)), cellText(get(toCol))
			}
			if u.From == "" && u.To == "" {
				continue
			}
			if m := datasourceRE.FindStringSubmatch(lines[i]); m != nil {
				u.Ecosystem = datasourceEcosystem(m[1])
			}
			if okType && strings.EqualFold(get(typeCol), "action") {
				u.Ecosystem = Actions
			}
			out = append(out, u)
		}
		i--
	}
	return out
}

// tableCells splits a Markdown table row, or returns nil for other lines.
func tableCells(line string) []string {
	t := strings.TrimSpace(line)
	if len(t) < 2 || t[0] != '|' || t[len(t)-1] != '|' {
		return nil
	}
	return strings.Split(t[1:len(t)-1], "|")
}

func isSeparatorRow(line string) bool {
	cells := tableCells(line)
	if cells == nil {
		return false
	}
	for _, c := range cells {
		if strings.Trim(strings.TrimSpace(c), ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// cellText extracts the name from a cell: the first link's text, else the
// first code span, else the text itself.
func cellText(c string) string {
	if m := mdLinkRE.FindStringSubmatch(c); m != nil {
		return strings.TrimSpace(strings.Trim(m[1], "`"))
	}
	if m := backtickRE.FindStringSubmatch(c); m != nil {
		return strings.TrimSpace(m[1])
	}
	return strings.TrimSpace(c)
}

// datasourceEcosystem is the ecosystem whose registry row lists Renovate
// datasource ds, or "" when none or several do ("maven" is Maven's and
// Gradle's).
func datasourceEcosystem(ds string) Ecosystem {
	var found Ecosystem
	for _, d := range registry {
		if slices.Contains(d.Datasources, ds) {
			if found != "" {
				return ""
			}
			found = Ecosystem(d.Name)
		}
	}
	return found
}

// topicEcosystem is the ecosystem whose registry row lists the topic of a
// Renovate title ("module", "docker tag"), or "" ("dependency").
func topicEcosystem(topic string) Ecosystem {
	topic = strings.ToLower(topic)
	for _, d := range registry {
		if slices.Contains(d.RenovateTopics, topic) {
			return Ecosystem(d.Name)
		}
	}
	return ""
}

// Datasources returns the Renovate datasources whose packages belong to
// ecosystem e (its registry row's), sorted.
func Datasources(e Ecosystem) []string {
	var out []string
	if d, ok := definition(e); ok {
		out = append(out, d.Datasources...)
	}
	slices.Sort(out)
	return out
}

var (
	titleTagRE    = regexp.MustCompile(`^\[[^\]]*\]\s*`)
	titlePrefixRE = regexp.MustCompile(`^[A-Za-z][A-Za-z-]*(?:\([^)]*\))?!?:\s*`)
	titleSuffixRE = regexp.MustCompile(`(?i)(?:\s+\(#\d+\)|\s+-\s+(?:autoclosed|abandoned)|\s+\[security\]|\s+\((?:major|minor|patch|non-major|pin|digest|lockfile maintenance)\))+$`)

	dbBumpRE   = regexp.MustCompile(`(?i)^bump (\S+) from (\S+) to (\S+?)(?: in (/\S*))?(?: in the \S+ group)?$`)
	dbReqRE    = regexp.MustCompile(`(?i)^update (\S+) requirement from (.+?) to (.+?)(?: in (/\S*))?$`)
	dbNamesRE  = regexp.MustCompile(`(?i)^bump ((?:\S+, )*\S+) and (\S+)(?: in (/\S*))?$`)
	rnTopicRE  = regexp.MustCompile(`(?i)^update (dependency|module|helm release|helm chart|rust crate|terraform|pre-commit hook|plugin|package) (\S+)(?: (\S+))? to (\S+)$`)
	rnSuffixRE = regexp.MustCompile(`(?i)^update (\S+) (action|docker tag|docker digest|digest|image) to (\S+)$`)
	rnNoVerRE  = regexp.MustCompile(`(?i)^(?:pin|update) (dependency|module|helm release) (\S+)$`)
)

// ParseTitle reads the updates a Dependabot or Renovate PR title announces:
// "Bump x from A to B [in /dir]", "Update x requirement from A to B",
// "Bump x and y" (names only), "Update dependency x to vN", "Update module
// x to vN", "Update helm release x to vN", "Update x action to vN",
// "Update x Docker tag to vN", with conventional-commit prefixes
// ("chore(deps): "), "[branch]" tags and Renovate suffixes (" [security]",
// " - autoclosed", " (#123)") removed. Group titles ("Bump the go group
// with 8 updates") and unrecognised titles give nothing.
func ParseTitle(title string) []BotUpdate {
	t := strings.TrimSpace(title)
	for {
		n := titlePrefixRE.ReplaceAllString(titleTagRE.ReplaceAllString(t, ""), "")
		if n == t {
			break
		}
		t = n
	}
	t = strings.TrimSpace(titleSuffixRE.ReplaceAllString(t, ""))
	one := func(e Ecosystem, pkg, from, to, dir string) []BotUpdate {
		return []BotUpdate{{Ecosystem: e, Package: pkg, From: from, To: to, Directory: dir, Source: SourceTitle}}
	}
	if strings.HasPrefix(strings.ToLower(t), "bump the ") {
		return nil
	}
	if m := dbBumpRE.FindStringSubmatch(t); m != nil {
		return one("", m[1], m[2], m[3], m[4])
	}
	if m := dbReqRE.FindStringSubmatch(t); m != nil {
		return one("", m[1], m[2], m[3], m[4])
	}
	if m := dbNamesRE.FindStringSubmatch(t); m != nil {
		var out []BotUpdate
		for _, n := range append(strings.Split(m[1], ", "), m[2]) {
			out = append(out, BotUpdate{Package: n, Directory: m[3], Source: SourceTitle})
		}
		return out
	}
	if m := rnTopicRE.FindStringSubmatch(t); m != nil {
		return one(topicEcosystem(m[1]), m[2], m[3], m[4], "")
	}
	if m := rnSuffixRE.FindStringSubmatch(t); m != nil {
		return one(topicEcosystem(m[2]), m[1], "", m[3], "")
	}
	if m := rnNoVerRE.FindStringSubmatch(t); m != nil {
		return one(topicEcosystem(m[1]), m[2], "", "", "")
	}
	return nil
}
