package pending

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestAbsentMembersStayAbsentAcrossReuse(t *testing.T) {
	tab := New("")
	for round, answer := range []struct{ result, errObj string }{
		{"", `{"code":1,"message":"x"}`},
		{`7`, ""},
		{"", `{"code":2,"message":"y"}`},
	} {
		c, _ := tab.Open()
		var result, errObj []byte
		if answer.result != "" {
			result = []byte(answer.result)
		}
		if answer.errObj != "" {
			errObj = []byte(answer.errObj)
		}
		tab.Deliver(c.ID(), result, errObj)
		res, e, err := c.Wait(context.Background())
		if err != nil || (res == nil) != (result == nil) || (e == nil) != (errObj == nil) ||
			string(res) != answer.result || string(e) != answer.errObj {
			t.Fatalf("round %d: result %q error %q (%v)", round, res, e, err)
		}
		c.Release()
	}
}

func TestSweepFailsChosenCalls(t *testing.T) {
	tab := New("")
	keep, _ := tab.Open()
	drop, _ := tab.Open()
	keep.Note, drop.Note = "keep", "drop"
	lost := errors.New("lost")
	tab.Sweep(func(c *Call) error {
		if c.Note == "drop" {
			return lost
		}
		return nil
	})
	if _, _, err := drop.Wait(context.Background()); err != lost {
		t.Fatalf("swept call: %v", err)
	}
	if tab.Len() != 1 || !tab.Deliver(keep.ID(), []byte(`1`), nil) {
		t.Fatal("the kept call is not waiting")
	}
}

func TestDeliverHookSeesTheCallFirst(t *testing.T) {
	tab := New("")
	var seen string
	tab.SetDeliverHook(func(c *Call, result []byte) { seen = c.Note.(string) + "=" + string(result) })
	plain, _ := tab.Open()
	plain.Note = "plain"
	tab.Deliver(plain.ID(), []byte(`1`), nil)
	if seen != "" {
		t.Fatalf("the hook saw a call not hooked: %q", seen)
	}
	c, _ := tab.Open()
	c.Note, c.Hooked = "sub", true
	tab.Deliver(c.ID(), []byte(`"0x1"`), nil)
	if seen != `sub="0x1"` {
		t.Fatalf("hook saw %q", seen)
	}
}

func TestIssuedAndFailID(t *testing.T) {
	tab := New("")
	a, _ := tab.Open()
	if !tab.Issued([]byte("1")) || tab.Issued([]byte("2")) || tab.Issued([]byte(`"1"`)) {
		t.Fatal("Issued is wrong")
	}
	gone := errors.New("gone")
	if !tab.FailID([]byte("1"), gone) || tab.FailID([]byte("1"), gone) {
		t.Fatal("FailID is wrong")
	}
	if _, _, err := a.Wait(context.Background()); err != gone {
		t.Fatalf("failed call: %v", err)
	}
	a.Release()
	if !tab.Issued([]byte("1")) {
		t.Fatal("an answered id is no longer issued")
	}
}

func TestShardedTable(t *testing.T) {
	tab := NewSharded("", 16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				c, err := tab.Open()
				if err != nil {
					t.Error(err)
					return
				}
				want := fmt.Sprint(g*1000 + i)
				go tab.Deliver(c.ID(), []byte(want), nil)
				res, _, err := c.Wait(context.Background())
				if err != nil || string(res) != want {
					t.Errorf("call %s: %q, %v", c.ID(), res, err)
				}
				c.Release()
			}
		})
	}
	wg.Wait()
	if tab.Len() != 0 {
		t.Fatalf("%d calls left", tab.Len())
	}
	left, _ := tab.Open()
	tab.Close(nil)
	if _, _, err := left.Wait(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := tab.Open(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Open after Close: %v", err)
	}
}
