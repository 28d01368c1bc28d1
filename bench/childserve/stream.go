package childserve

import (
	"bufio"
	"bytes"
	"net"
	"strconv"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
)

// bareAnswers are the answers of ids 1 to 5, the five calls as the
// workload numbers them, each with its newline.
var bareAnswers = func() [][]byte {
	out := [][]byte{nil}
	for i, c := range inprocess.Workload {
		out = append(out, []byte(`{"jsonrpc":"2.0","result":`+c.Result+`,"id":`+strconv.Itoa(i+1)+"}\n"))
	}
	return out
}()

// serveBare serves every connection of l until l is closed.
func serveBare(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go bareConn(c)
	}
}

// bareConn answers each line of c: a subscribe with the flood, anything
// else with the answer of its id. Answers to lines read together go out in
// one write.
func bareConn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 64<<10)
	bw := bufio.NewWriterSize(c, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		i := bytes.Index(line, []byte(`"id":`))
		if i < 0 {
			return
		}
		id := line[i+5:]
		id = id[:bytes.IndexAny(id, ",}")]
		if bytes.Contains(line, []byte(`"method":"demo_subscribe"`)) {
			bareFlood(bw, id)
			return
		}
		n, err := strconv.Atoi(string(id))
		if err != nil || n < 1 || n >= len(bareAnswers) {
			return
		}
		bw.Write(bareAnswers[n])
		if br.Buffered() == 0 && bw.Flush() != nil {
			return
		}
	}
}

// bareFlood answers the subscribe, then writes the notifications 1, 2, 3,
// ... until the connection fails.
func bareFlood(bw *bufio.Writer, id []byte) {
	bw.WriteString(`{"jsonrpc":"2.0","result":"0x1","id":` + string(id) + "}\n")
	head := []byte(`{"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":`)
	var note []byte
	for n := int64(1); ; n++ {
		note = append(append(note[:0], head...), strconv.AppendInt(nil, n, 10)...)
		note = append(note, "}}\n"...)
		if _, err := bw.Write(note); err != nil {
			return
		}
	}
}
