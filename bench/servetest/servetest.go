// Package servetest runs the bench's child servers inside a test process.
package servetest

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
)

// Serve runs serve, a child server's main (it prints its address on its
// first line, then serves until ctx ends), in this process until the test
// ends, and returns that first line.
func Serve(t testing.TB, serve func(ctx context.Context, out io.Writer) error) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, w) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, r)
	return strings.TrimSpace(line)
}
