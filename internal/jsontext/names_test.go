package jsontext

import (
	"strconv"
	"strings"
	"testing"
)

// TestNamesEveryPosition repeats each name of a 40-member object, written
// the other way (escaped or plain), so that both the small array and the
// map the set moves to past sixteen names are asked.
func TestNamesEveryPosition(t *testing.T) {
	plain := func(k int) string { return `"n` + strconv.Itoa(k) + `"` }
	escaped := func(k int) string { return `"\u006e` + strconv.Itoa(k) + `"` }
	var members []string
	for k := range 40 {
		name := plain(k)
		if k%3 == 0 {
			name = escaped(k)
		}
		members = append(members, name+":"+strconv.Itoa(k))
	}
	doc := "{" + strings.Join(members, ",") + "}"
	if !Valid([]byte(doc)) {
		t.Fatalf("distinct names refused: %s", doc)
	}
	for k := range 40 {
		again := escaped(k)
		if k%3 == 0 {
			again = plain(k)
		}
		for _, at := range []int{k + 1, 40} {
			withDup := append(append(append([]string(nil), members[:at]...), again+":null"), members[at:]...)
			if d := "{" + strings.Join(withDup, ",") + "}"; Valid([]byte(d)) {
				t.Errorf("name %d given again as %s at %d accepted", k, again, at)
			}
		}
	}
}
