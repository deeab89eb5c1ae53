package main

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// SPDX 2.3 JSON, the fields a consumer (Trivy, Grype, GitHub's dependency
// graph) reads. Written by hand from the binary's own module list
// (debug/buildinfo): the modules compiled in, with their versions and
// go.sum hashes, nothing the build machine adds (ADR 0122).
type spdxDoc struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      spdxCreation   `json:"creationInfo"`
	Packages          []spdxPackage  `json:"packages"`
	Relationships     []spdxRelation `json:"relationships"`
}

type spdxCreation struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	Name             string       `json:"name"`
	SPDXID           string       `json:"SPDXID"`
	VersionInfo      string       `json:"versionInfo"`
	DownloadLocation string       `json:"downloadLocation"`
	FilesAnalyzed    bool         `json:"filesAnalyzed"`
	LicenseConcluded string       `json:"licenseConcluded"`
	LicenseDeclared  string       `json:"licenseDeclared"`
	CopyrightText    string       `json:"copyrightText"`
	Checksums        []spdxSum    `json:"checksums,omitempty"`
	ExternalRefs     []spdxExtRef `json:"externalRefs,omitempty"`
	PrimaryPurpose   string       `json:"primaryPackagePurpose,omitempty"`
}

type spdxSum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type spdxExtRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type spdxRelation struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

// spdxID makes an SPDX identifier from a module path: letters, digits,
// '.' and '-' only.
func spdxID(prefix, s string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// writeSBOM writes the SPDX document of the image s, whose binary is
// binary (every platform's binary has the same module list).
func writeSBOM(s spec, binary, out string, digest string) error {
	bi, err := buildinfo.ReadFile(binary)
	if err != nil {
		return fmt.Errorf("reading the module list of %s: %w", binary, err)
	}
	version := s.Labels["org.opencontainers.image.version"]
	imageID := "SPDXRef-Image"
	doc := spdxDoc{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name:              s.Repo + ":" + s.Tag,
		DocumentNamespace: fmt.Sprintf("%s/spdx/%s/%s", s.Labels["org.opencontainers.image.source"], s.Name, digest),
		CreationInfo:      spdxCreation{Created: s.Created.UTC().Format(time.RFC3339), Creators: []string{"Tool: kubetenant-tools-images", "Organization: kubetenant"}},
	}
	doc.Packages = append(doc.Packages, spdxPackage{
		Name: s.Repo, SPDXID: imageID, VersionInfo: s.Tag, DownloadLocation: "NOASSERTION",
		LicenseConcluded: "Apache-2.0", LicenseDeclared: "Apache-2.0", CopyrightText: "NOASSERTION", PrimaryPurpose: "CONTAINER",
		Checksums:    []spdxSum{{Algorithm: "SHA256", Value: strings.TrimPrefix(digest, "sha256:")}},
		ExternalRefs: []spdxExtRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: fmt.Sprintf("pkg:oci/%s@%s?repository_url=%s", s.Name, strings.ReplaceAll(digest, ":", "%3A"), s.Repo)}},
	})
	doc.Relationships = append(doc.Relationships, spdxRelation{Element: "SPDXRef-DOCUMENT", Type: "DESCRIBES", Related: imageID})
	mainID := spdxID("SPDXRef-Go-", bi.Main.Path)
	doc.Packages = append(doc.Packages, spdxPackage{
		Name: bi.Main.Path, SPDXID: mainID, VersionInfo: version, DownloadLocation: "https://" + bi.Main.Path,
		LicenseConcluded: "Apache-2.0", LicenseDeclared: "Apache-2.0", CopyrightText: "NOASSERTION", PrimaryPurpose: "APPLICATION",
		ExternalRefs: []spdxExtRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/" + bi.Main.Path + "@" + version}},
	})
	doc.Relationships = append(doc.Relationships, spdxRelation{Element: imageID, Type: "CONTAINS", Related: mainID})
	goID := "SPDXRef-Go-stdlib"
	doc.Packages = append(doc.Packages, spdxPackage{
		Name: "stdlib", SPDXID: goID, VersionInfo: bi.GoVersion, DownloadLocation: "https://go.dev/dl/",
		LicenseConcluded: "NOASSERTION", LicenseDeclared: "BSD-3-Clause", CopyrightText: "NOASSERTION",
		ExternalRefs: []spdxExtRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/stdlib@" + bi.GoVersion}},
	})
	doc.Relationships = append(doc.Relationships, spdxRelation{Element: mainID, Type: "DEPENDS_ON", Related: goID})
	for _, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		id := spdxID("SPDXRef-Go-", m.Path+"-"+m.Version)
		p := spdxPackage{
			Name: m.Path, SPDXID: id, VersionInfo: m.Version, DownloadLocation: "https://proxy.golang.org/" + m.Path + "/@v/" + m.Version + ".zip",
			LicenseConcluded: "NOASSERTION", LicenseDeclared: "NOASSERTION", CopyrightText: "NOASSERTION",
			ExternalRefs: []spdxExtRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/" + m.Path + "@" + m.Version}},
		}
		if m.Sum != "" {
			// go.sum's h1: is a SHA-256 of the module's file list, not of
			// a file; SPDX has no algorithm for it, so it is an annotation-free
			// external reference rather than a checksum.
			p.ExternalRefs = append(p.ExternalRefs, spdxExtRef{Category: "OTHER", Type: "go-module-sum", Locator: m.Sum})
		}
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, spdxRelation{Element: mainID, Type: "DEPENDS_ON", Related: id})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}
