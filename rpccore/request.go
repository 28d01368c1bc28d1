package rpccore

// request.go reads request objects out of a document during the validating
// scan: each member the server cares about is kept as a slice of the input.

import "github.com/caddy-jsonrpc/caddy-jsonrpc/internal/jsontext"

// request is one Request object as found in the document. All slices point
// into the input; nothing is copied.
type request struct {
	method  []byte     // the method name's raw contents, between the quotes
	id      []byte     // the raw id value, nil when absent (a notification)
	args    callParams // params and, for an array, where its first elements lie
	result  []byte     // the raw result value, for responses from a peer
	errVal  []byte     // the raw error value, for responses from a peer
	entry   *entry     // the method, once lookup has found it (or not)
	looked  bool       // lookup has run and entry holds its answer
	escaped bool       // method holds backslash escapes
	invalid bool       // not a valid Request object
	badID   bool       // id present but not a string, number or null
	named   bool       // a "method" member was present
}

// isResponse reports whether the object is a Response (to a call this side
// made over a peer connection) rather than a Request.
func (r *request) isResponse() bool {
	return !r.named && r.id != nil && (r.result != nil || r.errVal != nil)
}

// idOrNull returns the id to echo in an answer: null when the request has no
// usable id.
func (r *request) idOrNull() []byte {
	if r.id == nil || r.badID {
		return nullID
	}
	return r.id
}

// isNotification reports whether the request asks for no answer. Invalid
// requests are always answered.
func (r *request) isNotification() bool {
	return r.id == nil && !r.invalid
}

// scanner is the validating scan of a request document, which reads the
// Request objects it meets itself.
type scanner struct{ jsontext.Scanner }

// envelope is what a request object's members have shown so far.
type envelope struct {
	seen      uint8 // bit k: a member of memberKey k was read
	versionOK bool  // "jsonrpc": "2.0"
	hasMethod bool  // a string method
}

// requestObject validates the object at the scanner's position (a '{') and
// fills r from its members. It returns false when the JSON is invalid,
// which includes a member name given twice. It reads the members that
// most clients write first, and just so, itself: the version, then the
// method, params (an array) and the id; the rest is left to
// requestMembers. It keeps its place in a local offset, handing it to the
// scanner only for values it does not read itself.
func (s *scanner) requestObject(r *request) bool {
	if !s.Enter() {
		return false
	}
	buf, i := s.Buf, s.Pos
	var env envelope
	if len(buf)-i <= len(canonicalVersion) || string(buf[i:i+len(canonicalVersion)]) != canonicalVersion {
		if i = jsontext.SkipSpace(buf, i); i < len(buf) && buf[i] == '}' {
			return s.closeRequest(r, i, env)
		}
		return s.requestMembers(r, i, env)
	}
	i = jsontext.SkipSpace(buf, i+len(canonicalVersion))
	env.versionOK, env.seen = true, 1<<keyJSONRPC
	if len(buf)-i <= len(canonicalMethod) || string(buf[i:i+len(canonicalMethod)]) != canonicalMethod {
		return s.requestMembers(r, i, env)
	}
	end, escaped, ok := jsontext.ScanString(buf, i+len(canonicalMethod)-1)
	if !ok {
		return false
	}
	r.named, env.hasMethod, env.seen = true, true, env.seen|1<<keyMethod
	r.method, r.escaped = buf[i+len(canonicalMethod):end-1], escaped
	if i = jsontext.SkipSpace(buf, end); i < len(buf) && buf[i] == '}' {
		return s.closeRequest(r, i, env)
	} else if i >= len(buf) || buf[i] != ',' {
		return false
	}
	i = jsontext.SkipSpace(buf, i+1)
	if len(buf)-i > len(canonicalParams) && string(buf[i:i+len(canonicalParams)]) == canonicalParams {
		start := i + len(canonicalParams) - 1
		s.Pos = start
		if !s.Array(&r.args.Elements) {
			return false
		}
		r.args.raw = buf[start:s.Pos]
		env.seen |= 1 << keyParams
		if i = jsontext.SkipSpace(buf, s.Pos); i < len(buf) && buf[i] == '}' {
			return s.closeRequest(r, i, env)
		} else if i >= len(buf) || buf[i] != ',' {
			return false
		}
		i = jsontext.SkipSpace(buf, i+1)
	}
	if len(buf)-i > len(canonicalID) && string(buf[i:i+len(canonicalID)]) == canonicalID {
		start, end, ok := i+len(canonicalID), 0, false
		switch c := buf[start]; {
		case c >= '0' && c <= '9' || c == '-':
			end, ok = jsontext.ScanNumber(buf, start)
		case c == '"':
			end, _, ok = jsontext.ScanString(buf, start)
		}
		if ok && end < len(buf) && buf[end] == '}' {
			r.id = buf[start:end]
			return s.closeRequest(r, end, env)
		}
		// Anything else is read again, the general way.
	}
	return s.requestMembers(r, i, env)
}

// requestMembers reads the members of the request object from buf[i] (a
// member's name, after whitespace) through the closing '}', the general
// way: in any order, with names and values written any way.
func (s *scanner) requestMembers(r *request, i int, env envelope) bool {
	buf := s.Buf
	var others jsontext.Names // names the specification does not define
	for {
		if i >= len(buf) || buf[i] != '"' {
			return false
		}
		key, n := compactKey(buf[i:])
		if n > 0 {
			i += n
		} else {
			end, keyEscaped, ok := jsontext.ScanString(buf, i)
			if !ok {
				return false
			}
			name := buf[i+1 : end-1]
			if keyEscaped {
				var scratch [32]byte
				name = jsontext.AppendUnquote(scratch[:0], name)
			}
			if key = keyOf(name); key == keyOther && !others.Add(buf, i+1, end-1, keyEscaped) {
				return false
			}
			if i = jsontext.SkipSpace(buf, end); i >= len(buf) || buf[i] != ':' {
				return false
			}
			i++
		}
		if key != keyOther {
			if env.seen&(1<<key) != 0 {
				return false
			}
			env.seen |= 1 << key
		}
		if i = jsontext.SkipSpace(buf, i); i >= len(buf) {
			return false
		}
		first := buf[i]
		valStart := i
		valEscaped := false
		switch {
		case first == '"':
			var ok bool
			if i, valEscaped, ok = jsontext.ScanString(buf, i); !ok {
				return false
			}
		case first >= '0' && first <= '9' || first == '-':
			var ok bool
			if i, ok = jsontext.ScanNumber(buf, i); !ok {
				return false
			}
		case first == '[' && key == keyParams:
			s.Pos = i
			if !s.Array(&r.args.Elements) {
				return false
			}
			i = s.Pos
		default:
			s.Pos = i
			if !s.Value() {
				return false
			}
			i = s.Pos
		}
		val := buf[valStart:i]
		switch key {
		case keyJSONRPC:
			env.versionOK = isVersion20(val)
		case keyMethod:
			r.named = true
			env.hasMethod = first == '"'
			if env.hasMethod {
				r.method = val[1 : len(val)-1]
				r.escaped = valEscaped
			}
		case keyParams:
			r.args.raw = val
		case keyID:
			r.id = val
			r.badID = first == '{' || first == '[' || first == 't' || first == 'f'
		case keyResult:
			r.result = val
		case keyError:
			r.errVal = val
		}
		if i = jsontext.SkipSpace(buf, i); i < len(buf) {
			switch buf[i] {
			case ',':
				i = jsontext.SkipSpace(buf, i+1)
				continue
			case '}':
				return s.closeRequest(r, i, env)
			}
		}
		return false
	}
}

// closeRequest ends the request object at buf[i] == '}', deciding whether
// it is a valid Request.
func (s *scanner) closeRequest(r *request, i int, env envelope) bool {
	s.Close(i)
	if p := r.args.raw; p != nil && p[0] != '[' && p[0] != '{' {
		r.invalid = true
	}
	if !env.versionOK || !env.hasMethod || r.badID {
		r.invalid = true
	}
	return true
}

// memberKey names the members of Request and Response objects.
type memberKey uint8

const (
	keyOther memberKey = iota
	keyJSONRPC
	keyMethod
	keyParams
	keyID
	keyResult
	keyError
)

// keyOf identifies an (unescaped) member name.
func keyOf(name []byte) memberKey {
	switch string(name) {
	case "jsonrpc":
		return keyJSONRPC
	case "method":
		return keyMethod
	case "params":
		return keyParams
	case "id":
		return keyID
	case "result":
		return keyResult
	case "error":
		return keyError
	}
	return keyOther
}

// compactKey recognises a member name written plainly and followed at once
// by the colon, as compact JSON has it, and returns it with the length of
// `"name":`. It returns n == 0 for anything else, which the general path
// reads.
func compactKey(b []byte) (key memberKey, n int) {
	// Each comparison is against a constant, which compiles to a few loads.
	switch {
	case len(b) >= 9 && string(b[:9]) == `"method":`:
		return keyMethod, 9
	case len(b) >= 9 && string(b[:9]) == `"params":`:
		return keyParams, 9
	case len(b) >= 5 && string(b[:5]) == `"id":`:
		return keyID, 5
	case len(b) >= 10 && string(b[:10]) == `"jsonrpc":`:
		return keyJSONRPC, 10
	case len(b) >= 9 && string(b[:9]) == `"result":`:
		return keyResult, 9
	case len(b) >= 8 && string(b[:8]) == `"error":`:
		return keyError, 8
	}
	return keyOther, 0
}

// canonicalVersion is the version member as nearly every client writes it,
// at the start of the object.
const canonicalVersion = `"jsonrpc":"2.0",`

// canonicalMethod is the start of the method member as most clients write
// it, after the version: up to the name's opening quote.
const canonicalMethod = `"method":"`

// canonicalParams and canonicalID start the members that most clients
// write next, in this order: up to the array's bracket, up to the id's
// value.
const (
	canonicalParams = `"params":[`
	canonicalID     = `"id":`
)

// isVersion20 reports whether the raw value is the string "2.0", in any
// escaped spelling.
func isVersion20(val []byte) bool {
	if string(val) == `"2.0"` {
		return true
	}
	if len(val) < 2 || val[0] != '"' || len(val) > 24 {
		return false
	}
	var scratch [24]byte
	return string(jsontext.AppendUnquote(scratch[:0], val[1:len(val)-1])) == "2.0"
}

// document is the result of scanning a whole request document.
type document struct {
	single      request   // the request when not a batch
	items       []request // the batch's requests, in order
	batch       bool      // the document is an array
	invalidJSON bool      // the document is not valid JSON
	nonObj      bool      // a valid JSON value that is neither object nor array
	maxDepth    int
}

// parseDocument validates doc and records its requests in d. It returns
// false when doc is not valid JSON (with nothing but whitespace around it).
func parseDocument(doc []byte, d *document) bool {
	s := scanner{jsontext.Scanner{Buf: doc}}
	switch s.Peek() {
	case '{':
		if !s.requestObject(&d.single) {
			return false
		}
	case '[':
		if !s.batchArray(d) {
			return false
		}
	default:
		if !s.Value() {
			return false
		}
		d.nonObj = true
	}
	s.SkipSpace()
	d.maxDepth = s.Deepest
	return s.Pos == len(doc)
}

// batchArray validates a batch (the next byte is '[') and records each item.
func (s *scanner) batchArray(d *document) bool {
	if !s.Enter() {
		return false
	}
	if s.Peek() == ']' {
		s.Close(s.Pos)
		return true
	}
	for {
		d.items = append(d.items, request{})
		r := &d.items[len(d.items)-1]
		if s.Peek() == '{' {
			if !s.requestObject(r) {
				return false
			}
		} else {
			if !s.Value() {
				return false
			}
			r.invalid = true
		}
		switch s.Peek() {
		case ',':
			s.Pos++
		case ']':
			s.Close(s.Pos)
			return true
		default:
			return false
		}
	}
}
