package natshub

import (
	"testing"
	"time"
)

func TestSessionLastsUntilTheConnectionIsLost(t *testing.T) {
	var s session
	s.begin() // New, before it connects
	first, cancel := s.wait(time.Minute)
	defer cancel()
	s.begin() // the first connect's handler, run later by the NATS client
	if first.Err() != nil {
		t.Fatalf("the first connect ended the session New waits in: %v", first.Err())
	}
	s.end() // the connection is lost
	if first.Err() == nil {
		t.Fatal("losing the connection did not end its session")
	}
	s.begin() // connected again
	second, cancel2 := s.wait(time.Minute)
	defer cancel2()
	if second.Err() != nil {
		t.Fatalf("a connect after a loss did not begin a new session: %v", second.Err())
	}
}
