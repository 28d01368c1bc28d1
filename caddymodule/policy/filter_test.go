package policy

import "testing"

func TestMethodFilterAllows(t *testing.T) {
	tests := []struct {
		name   string
		filter MethodFilter
		allow  []string
		hide   []string
	}{
		{"empty exposes all", MethodFilter{}, []string{"add", "x/y"}, nil},
		{"allow list", MethodFilter{Allow: []string{"add*", "get_data"}},
			[]string{"add", "addInt", "get_data"}, []string{"subtract", "get_dat", "xadd"}},
		{"deny only", MethodFilter{Deny: []string{"notify_*"}},
			[]string{"add", "notify"}, []string{"notify_hello", "notify_sum"}},
		{"deny wins over allow", MethodFilter{Allow: []string{"*"}, Deny: []string{"admin_?"}},
			[]string{"add", "admin_ab"}, []string{"admin_x"}},
		{"classes", MethodFilter{Allow: []string{"[a-c]*"}}, []string{"add", "cut"}, []string{"sum", "Add"}},
		{"star stops at a slash", MethodFilter{Allow: []string{"a*"}}, []string{"ab"}, []string{"a/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.filter.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, name := range tt.allow {
				if !tt.filter.Allows(name) {
					t.Errorf("%q hidden, want exposed", name)
				}
			}
			for _, name := range tt.hide {
				if tt.filter.Allows(name) {
					t.Errorf("%q exposed, want hidden", name)
				}
			}
		})
	}
}

func TestMethodFilterValidate(t *testing.T) {
	for _, f := range []MethodFilter{
		{Allow: []string{"["}},
		{Deny: []string{"a", "[]"}},
		{Allow: []string{""}},
		{Deny: []string{"\\"}},
	} {
		if err := f.Validate(); err == nil {
			t.Errorf("%+v: no error", f)
		}
	}
}

func TestMethodFilterUnused(t *testing.T) {
	f := MethodFilter{Allow: []string{"add*", "sbutract", "get_?ata"}}
	got := f.Unused([]string{"add", "addInt", "get_data", "subtract"})
	if len(got) != 1 || got[0] != "sbutract" {
		t.Errorf("unused %v, want [sbutract]", got)
	}
}
