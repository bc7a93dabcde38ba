// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)

// A Go program with known goroutines doing TCP, for
// tests/integration/test_record_go.sh:
//
//	gorecord ADDR ROUNDS GOFILE
//
// The main goroutine listens on ADDR and starts a "caller" goroutine; an
// accept goroutine serves each connection on a goroutine of its own.  For
// each round, main hands the caller a message through a channel (the
// caller is parked on it: a goready from main to the caller), the caller
// sends it and reads the echo.  Each goroutine prints its own id (from
// runtime.Stack) as "ROLE GOID" on stdout: the ground truth the recording
// is checked against.  It waits for GOFILE to exist before its first
// round, so that the recorder is attached by then.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

var out sync.Mutex

func goid() uint64 {
	var buf [64]byte
	f := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))
	n, _ := strconv.ParseUint(f[1], 10, 64)
	return n
}

func say(role string) {
	out.Lock()
	fmt.Printf("%s %d\n", role, goid())
	out.Unlock()
}

func serve(c net.Conn) {
	say("server")
	defer c.Close()
	buf := make([]byte, 64)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		c.Write(buf[:n])
	}
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gorecord ADDR ROUNDS GOFILE")
		os.Exit(2)
	}
	rounds, _ := strconv.Atoi(os.Args[2])
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	fmt.Println("listening")
	for {
		if _, err := os.Stat(os.Args[3]); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	say("main")
	msgs := make(chan string)
	done := make(chan struct{})
	go func() {
		say("caller")
		c, err := net.Dial("tcp", os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		buf := make([]byte, 64)
		for m := range msgs {
			c.Write([]byte(m))
			if _, err := io.ReadFull(c, buf[:len(m)]); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		c.Close()
		close(done)
	}()
	for i := 0; i < rounds; i++ {
		// the caller is parked on msgs by then: the send is a goready
		time.Sleep(5 * time.Millisecond)
		msgs <- fmt.Sprintf("round %d", i)
	}
	close(msgs)
	<-done
	fmt.Println("done")
}
