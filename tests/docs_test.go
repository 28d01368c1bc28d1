package tests

// docs_test.go reads the Markdown of README.md and docs/*.md for the tests
// that keep them true: their fenced code blocks, the markers (HTML
// comments) right above a block or a table, and the tables themselves.
//
// The markers:
//
//	<!-- docs:NAME -->              a block other tests find by NAME
//	<!-- docs:NAME:caddyfile -->    with <!-- docs:NAME:json -->: the Caddyfile adapts to the JSON
//	<!-- docs:no-adapt -->          a Caddyfile block that shows syntax, not a configuration
//	<!-- docs:no-validate -->       a JSON block that bin/caddy cannot provision here (files it names are missing)
//	<!-- docs:go-template NAME -->  a Go fragment, compiled inside tests/testdata/docs/NAME.go
//	<!-- docs:go-decl -->           a Go declaration, the same as the one of that name in the code
//	<!-- docs:go-run -->            a Go program, run against bin/caddy serving Caddyfile.example
//	<!-- docs:options MODULE -->    the table of a Caddy module's JSON fields and defaults
//	<!-- docs:defaults -->          a table of defaults and the constants that hold them
//	<!-- tests/greeter/greeter.go --> a block that is that file of the repository, byte for byte

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// block is a fenced code block of a Markdown file.
type block struct {
	file    string   // the file, relative to the repository
	line    int      // the line of the opening fence, from 1
	lang    string   // the first word of the fence's info string, lower-cased
	body    string   // the lines between the fences, each ending in "\n"
	markers []string // the HTML comments on the lines right above the fence, trimmed
	after   string   // the paragraph right after the closing fence
}

// where names the block in failure messages.
func (b block) where() string { return b.file + ":" + strconv.Itoa(b.line) }

// marked reports whether one of the block's markers is m, and returns
// what follows m in it ("" for m alone).
func (b block) marked(m string) (string, bool) {
	for _, have := range b.markers {
		if have == m {
			return "", true
		}
		if rest, ok := strings.CutPrefix(have, m+" "); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// docFile is one Markdown file, split into lines.
type docFile struct {
	name  string // relative to the repository
	lines []string
}

var docs struct {
	once   sync.Once
	files  []docFile
	blocks []block
	err    error
}

// docFiles returns README.md and every docs/*.md, read once.
func docFiles(t *testing.T) []docFile {
	t.Helper()
	loadDocs()
	if docs.err != nil {
		t.Fatal(docs.err)
	}
	return docs.files
}

// blocksOf returns the documentation's blocks of the language lang,
// failing the test when there is none.
func blocksOf(t *testing.T, lang string) []block {
	t.Helper()
	var out []block
	for _, b := range docBlocks(t) {
		if b.lang == lang {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s blocks in README.md and docs/", lang)
	}
	return out
}

// docBlocks returns every fenced code block of the documentation.
func docBlocks(t *testing.T) []block {
	t.Helper()
	docFiles(t)
	return docs.blocks
}

func loadDocs() {
	docs.once.Do(func() {
		names, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
		if err != nil {
			docs.err = err
			return
		}
		names = append([]string{filepath.Join("..", "README.md")}, names...)
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				docs.err = err
				return
			}
			rel, _ := filepath.Rel("..", name)
			f := docFile{name: filepath.ToSlash(rel), lines: strings.Split(string(b), "\n")}
			docs.files = append(docs.files, f)
			docs.blocks = append(docs.blocks, f.blocks()...)
		}
	})
}

// markerLine matches a line that is one HTML comment.
var markerLine = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)

// blocks splits f into its fenced code blocks.
func (f docFile) blocks() []block {
	var out []block
	for i := 0; i < len(f.lines); i++ {
		info, ok := strings.CutPrefix(f.lines[i], "```")
		if !ok {
			continue
		}
		b := block{file: f.name, line: i + 1, lang: strings.ToLower(firstWord(info))}
		b.markers = f.markersAbove(i)
		j := i + 1
		for j < len(f.lines) && f.lines[j] != "```" {
			b.body += f.lines[j] + "\n"
			j++
		}
		b.after = f.paragraphAt(j + 1)
		out = append(out, b)
		i = j
	}
	return out
}

// markersAbove returns the comments on the lines right above line i.
func (f docFile) markersAbove(i int) []string {
	var markers []string
	for k := i - 1; k >= 0; k-- {
		m := markerLine.FindStringSubmatch(f.lines[k])
		if m == nil {
			break
		}
		markers = append(markers, m[1])
	}
	slices.Reverse(markers)
	return markers
}

// paragraphAt returns the paragraph that starts at line i or after the
// blank lines there, joined into one line.
func (f docFile) paragraphAt(i int) string {
	for i < len(f.lines) && strings.TrimSpace(f.lines[i]) == "" {
		i++
	}
	var p []string
	for ; i < len(f.lines) && strings.TrimSpace(f.lines[i]) != ""; i++ {
		if strings.HasPrefix(f.lines[i], "```") || strings.HasPrefix(f.lines[i], "#") {
			break
		}
		p = append(p, strings.TrimSpace(f.lines[i]))
	}
	return strings.Join(p, " ")
}

// table is a Markdown table that a marker names.
type table struct {
	file   string
	line   int        // of the marker
	arg    string     // what follows the marker's name
	header []string   // the cells of the first row
	rows   [][]string // the cells of the other rows, but the separator
}

// docTables returns every table whose marker is m (as docs:options, with
// its argument, or docs:defaults), in file order.
func docTables(t *testing.T, m string) []table {
	t.Helper()
	var out []table
	for _, f := range docFiles(t) {
		for i, l := range f.lines {
			c := markerLine.FindStringSubmatch(l)
			if c == nil || (c[1] != m && !strings.HasPrefix(c[1], m+" ")) {
				continue
			}
			tb := table{file: f.name, line: i + 1, arg: strings.TrimSpace(strings.TrimPrefix(c[1], m))}
			for j := i + 1; j < len(f.lines) && strings.HasPrefix(f.lines[j], "|"); j++ {
				cells := tableCells(f.lines[j])
				switch {
				case tb.header == nil:
					tb.header = cells
				case strings.Trim(strings.Join(cells, ""), "-: ") == "":
					// the separator row
				default:
					tb.rows = append(tb.rows, cells)
				}
			}
			if len(tb.rows) == 0 {
				t.Errorf("%s:%d: the marker %q is not followed by a table", f.name, i+1, c[1])
			}
			out = append(out, tb)
		}
	}
	return out
}

// tableCells splits a table row into its trimmed cells; `\|` is a bar
// inside a cell.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	const bar = "\x00"
	row = strings.ReplaceAll(row, `\|`, bar)
	cells := strings.Split(row, "|")
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(strings.TrimSpace(c), bar, "|")
	}
	return cells
}

// codeSpans returns the text of each `code span` of s.
var codeSpan = regexp.MustCompile("`([^`]+)`")

func codeSpans(s string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// namedBlock returns the one block marked docs:name, failing the test
// unless exactly one is.
func namedBlock(t *testing.T, name string) block {
	t.Helper()
	var found []block
	for _, b := range docBlocks(t) {
		if _, ok := b.marked("docs:" + name); ok {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		t.Fatalf("no block of README.md or docs/ is marked <!-- docs:%s -->", name)
	case 1:
	default:
		t.Fatalf("%d blocks are marked <!-- docs:%s --> (%s and %s)", len(found), name, found[0].where(), found[1].where())
	}
	return found[0]
}

// fileMarker returns the repository file a block says it is, if any: a
// marker that is a path to an existing file.
func fileMarker(b block) string {
	for _, m := range b.markers {
		if strings.ContainsAny(m, " :") || !strings.Contains(m, "/") {
			continue
		}
		if st, err := os.Stat(filepath.Join("..", m)); err == nil && !st.IsDir() {
			return m
		}
	}
	return ""
}

// knownMarker reports whether m is a marker the docs tests read.
func knownMarker(m string) bool {
	name, ok := strings.CutPrefix(m, "docs:")
	if !ok {
		return false
	}
	word := firstWord(name)
	switch word {
	case "no-adapt", "no-validate", "go-decl", "go-run", "defaults":
		return word == name
	case "go-template", "options":
		return word != name
	}
	return regexp.MustCompile(`^[a-z0-9_]+(:caddyfile|:json)?$`).MatchString(name)
}

// TestDocsMarkersAreKnown fails for a docs: marker no test reads (a typo
// would silently drop a check) and for a file marker naming no file.
func TestDocsMarkersAreKnown(t *testing.T) {
	for _, f := range docFiles(t) {
		for i, l := range f.lines {
			m := markerLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			switch {
			case strings.HasPrefix(m[1], "docs:") && !knownMarker(m[1]):
				t.Errorf("%s:%d: unknown marker <!-- %s -->", f.name, i+1, m[1])
			case strings.HasSuffix(m[1], ".go") && !strings.Contains(m[1], " "):
				if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
					t.Errorf("%s:%d: the marker names %s: %v", f.name, i+1, m[1], err)
				}
			}
		}
	}
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
