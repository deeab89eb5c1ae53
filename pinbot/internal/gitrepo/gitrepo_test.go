package gitrepo_test

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo/gitrepotest"
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
	tree, err := r.Tree(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(tree, "README.md", "a/b/c.txt", "new.txt"); err != nil {
		t.Fatal(err)
	}
	data, err := fs.ReadFile(tree, "a/b/c.txt")
	if err != nil || string(data) != "c2\n" {
		t.Errorf("ReadFile(a/b/c.txt) = %q, %v, want c2", data, err)
	}
	if _, err := fs.Stat(tree, "a/d.txt"); err == nil {
		t.Errorf("a/d.txt exists at head, want removed")
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
