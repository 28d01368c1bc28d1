package rpccore_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// checkDocumentAgrees fails unless answering ReadDocument(doc) gives the
// bytes and the summary that ProcessSummary gives for doc.
func checkDocumentAgrees(t *testing.T, s *rpccore.Server, doc string) {
	var want, got rpccore.Summary
	wantOut := string(s.ProcessSummary(context.Background(), []byte(doc), nil, &want))
	gotOut := string(s.ProcessDocument(context.Background(), rpccore.ReadDocument([]byte(doc)), nil, &got))
	if gotOut != wantOut || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nProcessDocument %s %+v\nProcessSummary  %s %+v", doc, gotOut, got, wantOut, want)
	}
}

func TestProcessDocumentAnswersAsProcess(t *testing.T) {
	s := demoServer(t, rpccore.WithMaxBatch(3), rpccore.WithMaxDepth(4), rpccore.WithMaxRequestBytes(200))
	for _, doc := range append(fuzzSeeds,
		`[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"add","params":[1,2],"id":2},
		  {"jsonrpc":"2.0","method":"add","params":[1,2],"id":3},{"jsonrpc":"2.0","method":"add","params":[1,2],"id":4}]`,
		`{"jsonrpc":"2.0","method":"sum","params":[[[[[1]]]]],"id":1}`,
		`{"jsonrpc":"2.0","method":"StringMe","params":["`+strings.Repeat("x", 300)+`"],"id":1}`,
	) {
		checkDocumentAgrees(t, s, doc)
	}
}

func FuzzProcessDocument(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add(seed)
	}
	s := demoServer(f, rpccore.WithMaxBatch(8), rpccore.WithMaxDepth(6))
	f.Fuzz(func(t *testing.T, doc string) {
		checkDocumentAgrees(t, s, doc)
		d := rpccore.ReadDocument([]byte(doc))
		var names []string
		if d.EveryMethod(func(m []byte) bool { names = append(names, string(m)); return true }) && len(names) != d.Calls() {
			t.Fatalf("%q: %d methods seen for %d calls", doc, len(names), d.Calls())
		}
	})
}

func TestDocumentMethods(t *testing.T) {
	tests := []struct {
		doc   string
		every bool
		names string
	}{
		{`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, true, "add"},
		{`[{"jsonrpc":"2.0","method":"add","id":1},{"jsonrpc":"2.0","method":"su\u0062","id":2}]`, true, "add,sub"},
		{`[{"jsonrpc":"2.0","method":"add","id":1},{"jsonrpc":"2.0","id":2}]`, false, "add"},
		{`[{"jsonrpc":"2.0","method":"add","id":1},1]`, false, "add"},
		{`[]`, false, ""},
		{`{"jsonrpc":"2.0","method":"add","method":"eth_sendRawTransaction","id":1}`, false, ""},
		{`{"jsonrpc":"2.0","method":"add","id":1}   `, true, "add"},
		{`{"jsonrpc":"2.0","method":"add","id":1} x`, false, ""},
		{`"add"`, false, ""},
	}
	for _, tt := range tests {
		d := rpccore.ReadDocument([]byte(tt.doc))
		var names []string
		every := d.EveryMethod(func(m []byte) bool { names = append(names, string(m)); return true })
		if every != tt.every || strings.Join(names, ",") != tt.names {
			t.Errorf("%s: every %v names %v; want %v %q", tt.doc, every, names, tt.every, tt.names)
		}
	}
	stop := rpccore.ReadDocument([]byte(`[{"jsonrpc":"2.0","method":"a","id":1},{"jsonrpc":"2.0","method":"b","id":2}]`))
	seen := 0
	if stop.EveryMethod(func(m []byte) bool { seen++; return string(m) != "a" }) || seen != 1 {
		t.Fatal("EveryMethod stops at the first method fn refuses")
	}
}
