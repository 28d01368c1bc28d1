// Command freeport prints the given number of free TCP ports on 127.0.0.1
// (default 1), separated by spaces, for a server about to be started.
//
//	read -r https_port http_port < <(freeport 2)
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

func main() {
	flag.Parse()
	n := 1
	if flag.NArg() > 0 {
		var err error
		if n, err = strconv.Atoi(flag.Arg(0)); err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "freeport: want a positive count, got", flag.Arg(0))
			os.Exit(2)
		}
	}
	ports := make([]string, 0, n)
	var held []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "freeport:", err)
			os.Exit(1)
		}
		held = append(held, l)
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	for _, l := range held {
		l.Close()
	}
	fmt.Println(strings.Join(ports, " "))
}
