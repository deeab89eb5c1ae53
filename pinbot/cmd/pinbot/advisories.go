package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// readAdvisories fills in the advisories of the enforced pins of rows from
// GitHub's global advisory database at apiURL: anonymously, or with the
// token in GITHUB_TOKEN (never a flag: ADR 0275).
func readAdvisories(e env, apiURL string, rows []pinRow) error {
	gh, err := ghclient.Upstream(ghclient.UpstreamConfig{URL: apiURL, Token: strings.TrimSpace(e.getenv("GITHUB_TOKEN")), UserAgent: "pinbot"})
	if err != nil {
		return usagef("--github-url: %v", err)
	}
	var pins []pin.Pin
	var idx []int
	for i, r := range rows {
		if r.NotEnforced == "" {
			pins = append(pins, r.Pin)
			idx = append(idx, i)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for k, a := range (&source.Advisories{GH: gh}).For(ctx, pins) {
		rows[idx[k]].Advisories = &a
	}
	return nil
}

// printAdvisories prints, under the pins' table, each enforced pin's
// advisories: "none", "not covered" (Docker, Helm, Terraform), what could
// not be read, or each advisory with its severity and first patched
// version; a critical or high one is marked "!!".
func printAdvisories(w io.Writer, rows []pinRow) {
	var lines []string
	for _, r := range rows {
		a := r.Advisories
		if a == nil {
			continue
		}
		head := fmt.Sprintf("  %s %s %s", adrCell(r.Source), r.Package, r.Version)
		switch {
		case !a.Covered:
			lines = append(lines, head+": not covered (GitHub's advisory database has no "+string(r.Ecosystem)+" ecosystem)")
		case a.Err != "":
			lines = append(lines, head+": could not read: "+a.Err)
		case len(a.Advisories) == 0:
			lines = append(lines, head+": none")
		default:
			mark := ""
			if a.Serious() {
				mark = "!! "
			}
			lines = append(lines, head+": "+mark+fmt.Sprintf("%d advisor%s", len(a.Advisories), map[bool]string{true: "y", false: "ies"}[len(a.Advisories) == 1]))
			for _, adv := range a.Advisories {
				patched := "no patched version yet"
				if adv.FirstPatched != "" {
					patched = "first patched " + adv.FirstPatched
				}
				lines = append(lines, fmt.Sprintf("    %s %s, vulnerable %s, %s: %s", adv.ID(), adv.Severity, adv.Vulnerable, patched, adv.Summary))
			}
		}
	}
	if lines == nil {
		return
	}
	fmt.Fprintf(w, "\nadvisories of the pinned versions (GitHub's advisory database; !! critical or high):\n%s\n", strings.Join(lines, "\n"))
}
