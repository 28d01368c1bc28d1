package rpcclient

// resume.go keeps where each subscription's notifications have reached in
// their topic's history, when the server gives positions, so that a
// subscription made again after a reconnect resumes from there:
//
//	--> {"method":"<ns>_subscribe","params":{"name":"chat","args":[...],
//	     "resume":{"epoch":"3f9a...","offset":41}}}
//	<-- {"result":{"subscription":"0x...","position":{...},"recovered":true}}
//
// recovered true: the missed notifications follow, in order, before the
// live ones, and no gap is signalled.

import (
	"bytes"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"
)

// position is the last place in its topic's history that a
// subscription's notifications reached, as the server wrote it.
type position struct {
	epoch  []byte // the raw JSON string, reused while the epoch stays
	offset uint64
	known  bool
}

// readPosition reads {"epoch": "...", "offset": N} in valid JSON, the
// epoch left raw (quoted, escaped as the server wrote it).
func readPosition(val []byte) (epoch []byte, offset uint64, ok bool) {
	if len(val) == 0 || val[0] != '{' {
		return nil, 0, false
	}
	var haveOffset bool
	ok = true
	jsontext.EachMember(val, func(name, v []byte) bool {
		switch string(name) {
		case "epoch":
			if ok = v[0] == '"'; ok {
				epoch = v
			}
		case "offset":
			offset, haveOffset = jsontext.ParseUint(v)
			ok = haveOffset
		}
		return ok
	})
	return epoch, offset, ok && epoch != nil && haveOffset
}

// advance takes the raw position of a notification and reports whether
// the notification is new: false when it is not after the last one of
// the same epoch, a notification already delivered. A position that
// cannot be read is let through and leaves p as it was.
func (p *position) advance(raw []byte) bool {
	epoch, offset, ok := readPosition(raw)
	if !ok {
		return true
	}
	if p.known && bytes.Equal(epoch, p.epoch) {
		if offset <= p.offset {
			return false
		}
	} else {
		p.epoch, p.known = append(p.epoch[:0], epoch...), true
	}
	p.offset = offset
	return true
}

// reset makes raw, the position of a subscribe call's answer, the last
// one; nil (or one that cannot be read) forgets it.
func (p *position) reset(raw []byte) {
	p.known = false
	p.advance(raw)
}

// appendResume appends p as the "resume" member of the object form.
func (p *position) appendResume(dst []byte) []byte {
	dst = append(append(dst, `,"resume":{"epoch":`...), p.epoch...)
	dst = strconv.AppendUint(append(dst, `,"offset":`...), p.offset, 10)
	return append(dst, '}')
}

// objectParams returns the object form of params, a params array whose
// first element is the subscription's name, {"name":...,"args":[...]},
// with the last position as "resume" when resume and one is known; nil
// when params have no such form. It runs under s.mu.
func (s *ClientSubscription) objectParams(params []byte, resume bool) []byte {
	if !jsontext.Valid(params) {
		return nil
	}
	start := jsontext.SkipSpace(params, 0)
	if params[start] != '[' {
		return nil
	}
	i := jsontext.SkipSpace(params, start+1)
	if params[i] != '"' {
		return nil
	}
	end := jsontext.SkipValue(params, i)
	obj := append(append(make([]byte, 0, len(params)+64), `{"name":`...), params[i:end]...)
	if rest := jsontext.SkipSpace(params, end); params[rest] == ',' {
		// The elements after the name, through the closing ']'.
		obj = append(append(obj, `,"args":[`...), params[rest+1:jsontext.SkipValue(params, start)]...)
	}
	if resume && s.pos.known {
		obj = s.pos.appendResume(obj)
	}
	return append(obj, '}')
}

// readSubscribeAnswer reads a subscribe call's result: the id itself
// (go-ethereum's form), or the object form's answer.
func readSubscribeAnswer(result []byte) (id, pos []byte, recovered bool) {
	if result[0] != '{' {
		return result, nil, false
	}
	jsontext.EachMember(result, func(name, val []byte) bool {
		switch string(name) {
		case "subscription":
			id = val
		case "position":
			pos = val
		case "recovered":
			recovered = string(val) == "true"
		}
		return true
	})
	return id, pos, recovered
}
