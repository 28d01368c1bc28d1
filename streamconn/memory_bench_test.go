package streamconn_test

// memory_bench_test.go measures what an idle stream connection costs.

import (
	"bufio"
	"net"
	"runtime"
	"testing"
	"time"
)

// BenchmarkIdleConnectionMemory reports the goroutines and memory (heap
// and stacks, the client's sockets included) per idle connection. Each
// round opens 2,000 connections, makes one call on each, and lets them idle.
func BenchmarkIdleConnectionMemory(b *testing.B) {
	for b.Loop() {
		idleConnections(b, 2000)
	}
}

func idleConnections(b *testing.B, n int) {
	addr := listenDemo(b)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		conns[i] = c
		c.Write([]byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(runtime.NumGoroutine()-g0)/float64(n), "goroutines/conn")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/float64(n)/1024, "heap-KiB/conn")
	b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/float64(n)/1024, "stack-KiB/conn")
	for _, c := range conns {
		c.Close()
	}
}
