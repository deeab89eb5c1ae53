package gitrepo_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

func TestRepo(t *testing.T) {
	ctx := context.Background()
	g := gitrepotest.New(t)
	g.Write(map[string]string{"README.md": "hi\n", "a/b/c.txt": "c\n", "a/d.txt": "d\n"})
	first := g.Commit("first")
	g.Checkout("feature", true)
	g.Write(map[string]string{"a/b/c.txt": "c2\n", "new.txt": "n\n"})
	g.Remove("a/d.txt")
	g.Commit("change c\n\nwith a body")
	g.Checkout("main", false)
	g.Write(map[string]string{"README.md": "hi again\n"})
	g.Commit("main moves on")

	r, err := gitrepo.Open(ctx, g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Resolve(ctx, "feature")
	if err != nil {
		t.Fatal(err)
	}
	base, err := r.Resolve(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	mb, err := r.MergeBase(ctx, base, head)
	if err != nil || mb != first {
		t.Fatalf("MergeBase() = %q, %v, want %q", mb, err, first)
	}
	files, err := r.ChangedFiles(ctx, mb, head)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/b/c.txt", "a/d.txt", "new.txt"}, files); diff != "" {
		t.Errorf("ChangedFiles() mismatch (-want +got):\n%s", diff)
	}
	msgs, err := r.Messages(ctx, mb, head)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"change c\n\nwith a body"}, msgs); diff != "" {
		t.Errorf("Messages() mismatch (-want +got):\n%s", diff)
	}
	entries, err := r.ListTree(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]gitrepo.TreeEntry{}
	for _, e := range entries {
		byPath[e.Path] = e
	}
	if byPath["a"].Type != "tree" || byPath["a/b/c.txt"].Type != "blob" || byPath["a/b/c.txt"].Size != 3 {
		t.Errorf("ListTree() = %+v, want folder a and blob a/b/c.txt of 3 bytes", entries)
	}
	if _, ok := byPath["a/d.txt"]; ok {
		t.Errorf("a/d.txt listed at head, want removed")
	}
	blobs, err := r.ReadBlobs(ctx, []string{byPath["a/b/c.txt"].SHA, byPath["new.txt"].SHA})
	if err != nil || string(blobs[byPath["a/b/c.txt"].SHA]) != "c2\n" || len(blobs) != 2 {
		t.Errorf("ReadBlobs() = %q, %v, want c2 and new.txt", blobs, err)
	}
	changes, err := r.Diff(ctx, mb, head)
	if err != nil {
		t.Fatal(err)
	}
	want := []gitrepo.FileChange{{Path: "a/b/c.txt", Status: "modified", SHA: byPath["a/b/c.txt"].SHA}, {Path: "a/d.txt", Status: "removed"},
		{Path: "new.txt", Status: "added", SHA: byPath["new.txt"].SHA}}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("Diff() mismatch (-want +got):\n%s", diff)
	}
	if _, err := r.Resolve(ctx, "no-such-branch"); err == nil {
		t.Errorf("Resolve(no-such-branch) succeeded")
	}
	if _, err := r.Resolve(ctx, "--all"); err == nil {
		t.Errorf("Resolve(--all) succeeded, want a refusal")
	}
	if _, err := gitrepo.Open(ctx, t.TempDir()); err == nil {
		t.Errorf("Open(non-repository) succeeded")
	}
}
