package main

// Mozilla's CA roots, used only where the system has none: the container
// images carry no CA file (ADR 0122), and GitHub, GitHub Enterprise,
// provisioners and the API server's TLS still verify. A system bundle, or
// --ca-file / --provisioner-ca-file, still wins where present.
import _ "golang.org/x/crypto/x509roots/fallback"
