package openrpc

// fields.go lists the fields a struct encodes to JSON, by the rules of
// encoding/json that goccy/go-json follows: json tags, "-", omitempty,
// the string option, and the fields of embedded structs promoted, the
// shallowest (or, at one depth, the only tagged) field winning a name.

import (
	"reflect"
	"strings"
)

// jsonField is one member of a struct's JSON form.
type jsonField struct {
	name    string
	typ     reflect.Type
	omitted bool // omitempty or omitzero: not always written
	quoted  bool // the string option: a number or bool written as a string
	depth   int  // how deeply embedded
	tagged  bool // named by its tag
}

// jsonFields returns the members of t's JSON form, in field order.
func jsonFields(t reflect.Type) []jsonField {
	var all []jsonField
	collectFields(t, 0, map[reflect.Type]bool{}, &all)
	byName := map[string][]int{}
	for i, f := range all {
		byName[f.name] = append(byName[f.name], i)
	}
	var out []jsonField
	for i, f := range all {
		if dominant(all, byName[f.name]) == i {
			out = append(out, f)
		}
	}
	return out
}

// collectFields appends the fields of t and, depth first, of the structs
// it embeds without a name. seen stops cycles of embedded pointers.
func collectFields(t reflect.Type, depth int, seen map[reflect.Type]bool, out *[]jsonField) {
	if seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous {
			inner := ft
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if !f.IsExported() && inner.Kind() != reflect.Struct {
				continue
			}
			if name == "" && inner.Kind() == reflect.Struct {
				collectFields(inner, depth+1, seen, out)
				continue
			}
		} else if !f.IsExported() {
			continue
		}
		jf := jsonField{name: name, typ: ft, depth: depth, tagged: name != ""}
		if name == "" {
			jf.name = f.Name
		}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "omitempty", "omitzero":
				jf.omitted = true
			case "string":
				jf.quoted = quotable(ft)
			}
		}
		*out = append(*out, jf)
	}
}

// quotable reports whether the string option applies to a field of type t.
func quotable(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// dominant returns which of the fields at indexes (all of one name) is
// encoded, or -1 when none is: the shallowest, or at one depth the only
// tagged one, or the only one.
func dominant(all []jsonField, indexes []int) int {
	best := all[indexes[0]].depth
	for _, i := range indexes {
		best = min(best, all[i].depth)
	}
	winner, tagged, count := -1, 0, 0
	for _, i := range indexes {
		if all[i].depth != best {
			continue
		}
		count++
		if all[i].tagged {
			tagged++
			winner = i
		}
	}
	switch {
	case count == 1:
		for _, i := range indexes {
			if all[i].depth == best {
				return i
			}
		}
	case tagged == 1:
		return winner
	}
	return -1
}
