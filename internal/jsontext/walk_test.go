package jsontext

import (
	"slices"
	"testing"
)

func TestSkipValue(t *testing.T) {
	for doc, want := range map[string]string{
		` "a\"]" ,`:                `"a\"]"`,
		`{"a":["}",{"b":"\\"}]} x`: `{"a":["}",{"b":"\\"}]}`,
		`-1.5e3]`:                  `-1.5e3`,
		`true,`:                    `true`,
		`null`:                     `null`,
		`[[],{}] `:                 `[[],{}]`,
	} {
		start := SkipSpace([]byte(doc), 0)
		if got := doc[start:SkipValue([]byte(doc), 0)]; got != want {
			t.Errorf("SkipValue(%q) stops after %q, want %q", doc, got, want)
		}
	}
}

func TestSkipSpace(t *testing.T) {
	for doc, want := range map[string]int{"": 0, "x": 0, " \t\r\nx": 4, "   ": 3, "\v": 0} {
		if got := SkipSpace([]byte(doc), 0); got != want {
			t.Errorf("SkipSpace(%q) = %d, want %d", doc, got, want)
		}
	}
}

func TestEachElement(t *testing.T) {
	var got []string
	EachElement([]byte(` [ 1 , "a,b" ,[2,3],{"x":"]"} ,null] `[1:]), func(el []byte) bool {
		got = append(got, string(el))
		return true
	})
	if want := []string{"1", `"a,b"`, "[2,3]", `{"x":"]"}`, "null"}; !slices.Equal(got, want) {
		t.Errorf("elements %q, want %q", got, want)
	}
	n := 0
	EachElement([]byte(`[1,2,3]`), func([]byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("EachElement went on after false: %d calls", n)
	}
	EachElement([]byte(`[ ]`), func([]byte) bool { t.Error("called for an empty array"); return true })
}

func TestEachMember(t *testing.T) {
	var got []string
	EachMember([]byte(`{ "a" : 1 , "b\"c":{"d":[]},"\u0065": "x" }`), func(name, val []byte) bool {
		got = append(got, string(name)+"="+string(val))
		return true
	})
	if want := []string{"a=1", `b\"c={"d":[]}`, `\u0065="x"`}; !slices.Equal(got, want) {
		t.Errorf("members %q, want %q", got, want)
	}
	n := 0
	EachMember([]byte(`{"a":1,"b":2}`), func(_, _ []byte) bool { n++; return false })
	if n != 1 {
		t.Errorf("EachMember went on after false: %d calls", n)
	}
	EachMember([]byte(`{ }`), func(_, _ []byte) bool { t.Error("called for an empty object"); return true })
}
