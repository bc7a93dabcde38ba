// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)

// Go programs of the hand-off workloads (README.md here), stdlib only:
//
//	goapp front LISTEN_IP:PORT BACKEND_IP:PORT
//	goapp back LISTEN_IP:PORT
//
// front: a net/http server whose handler runs a request's plan (the text
// form of tests/handoff/client.py's plan_text) against the back end through
// one shared keep-alive http.Client: a stage of one call on the handler's
// own goroutine, a wider stage on one goroutine per call.  net/http's client
// writes and reads on goroutines of its own, so no call is sent by the
// goroutine, let alone the thread, that read the request.
//
// back: a net/http server that answers each call, after its work, with the
// client port of the connection it came on (X-Conn-Port) and the call's
// 0-based ordinal on that connection (X-Conn-Ord): what vpath-analyze
// reports as the call's client addr and conn_index.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type call struct {
	delay            bool
	workUs, req, rep int
}

// parsePlan reads "d.w.q.r,d.w.q.r|d.w.q.r": stages by '|', calls by ','.
func parsePlan(text string) ([][]call, error) {
	var stages [][]call
	if text == "" {
		return stages, nil
	}
	for _, st := range strings.Split(text, "|") {
		var stage []call
		for _, c := range strings.Split(st, ",") {
			f := strings.Split(c, ".")
			if len(f) != 4 {
				return nil, fmt.Errorf("bad call %q", c)
			}
			var n [4]int
			for i := range f {
				v, err := strconv.Atoi(f[i])
				if err != nil {
					return nil, fmt.Errorf("bad call %q", c)
				}
				n[i] = v
			}
			stage = append(stage, call{n[0] != 0, n[1], n[2], n[3]})
		}
		stages = append(stages, stage)
	}
	return stages, nil
}

type front struct {
	client  *http.Client
	callURL string
	// a call made otherwise than by an HTTP request (tests/h2/gogrpc.go)
	rpc func(c call) ([]int, error)
}

// backendCall returns the call's true identity: [client port, ordinal]
// (tests/h2's nginx variants: and the call the proxy made for it).
func (f *front) backendCall(c call) ([]int, error) {
	id := make([]int, 2)
	if c.delay {
		time.Sleep(time.Millisecond)
	}
	if f.rpc != nil {
		return f.rpc(c)
	}
	req, err := http.NewRequest("POST", f.callURL, strings.NewReader(strings.Repeat("q", c.req)))
	if err != nil {
		return id, err
	}
	req.Header.Set("X-Work-Us", strconv.Itoa(c.workUs))
	req.Header.Set("X-Reply-Bytes", strconv.Itoa(c.rep))
	resp, err := f.client.Do(req)
	if err != nil {
		return id, err
	}
	// drained, so the connection goes back to the pool
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return id, err
	}
	if resp.StatusCode != http.StatusOK {
		return id, fmt.Errorf("back end: HTTP %d", resp.StatusCode)
	}
	id[0], err = strconv.Atoi(resp.Header.Get("X-Conn-Port"))
	if err == nil {
		id[1], err = strconv.Atoi(resp.Header.Get("X-Conn-Ord"))
	}
	return id, err
}

func (f *front) runStage(stage []call) ([][]int, error) {
	ids := make([][]int, len(stage))
	if len(stage) == 1 {
		id, err := f.backendCall(stage[0])
		ids[0] = id
		return ids, err
	}
	errs := make([]error, len(stage))
	var wg sync.WaitGroup
	for i := range stage {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ids[i], errs[i] = f.backendCall(stage[i])
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	text, _, _ := strings.Cut(string(body), "\n")
	stages, err := parsePlan(text)
	id, idErr := strconv.Atoi(r.Header.Get("X-Request-Id"))
	if err == nil {
		err = idErr
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	calls := [][]int{}
	for _, stage := range stages {
		ids, err := f.runStage(stage)
		if err != nil {
			fmt.Fprintf(os.Stderr, "goapp front: request %d: %v\n", id, err)
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		calls = append(calls, ids...)
	}
	out, _ := json.Marshal(map[string]interface{}{"id": id, "calls": calls})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

type connKey struct{}

// backConn counts the calls that arrived on one back-end connection.
type backConn struct {
	port  int
	calls int64
}

func serveBack(w http.ResponseWriter, r *http.Request) {
	bc := r.Context().Value(connKey{}).(*backConn)
	answerCall(w, r, bc.port, atomic.AddInt64(&bc.calls, 1)-1)
}

// answerCall does a call's work and names it in the reply's headers.
func answerCall(w http.ResponseWriter, r *http.Request, port int, ordinal int64) {
	io.Copy(io.Discard, r.Body)
	workUs, _ := strconv.Atoi(r.Header.Get("X-Work-Us"))
	reply, _ := strconv.Atoi(r.Header.Get("X-Reply-Bytes"))
	if workUs > 0 {
		time.Sleep(time.Duration(workUs) * time.Microsecond)
	}
	w.Header().Set("X-Conn-Port", strconv.Itoa(port))
	w.Header().Set("X-Conn-Ord", strconv.FormatInt(ordinal, 10))
	w.Write([]byte(strings.Repeat("r", reply)))
}

func listen(addr, what string) net.Listener {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "goapp %s: %v\n", what, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "goapp %s: listening on %s\n", what, addr)
	return ln
}

// More modes, from files built with this one (tests/h2/goh2.go: HTTP/2
// over golang.org/x/net), so that this file alone needs nothing but the
// standard library: mode -> run(the arguments after it).
var extraModes = map[string]func(args []string) error{}

func main() {
	var err error
	var run func([]string) error
	if len(os.Args) > 1 {
		run = extraModes[os.Args[1]]
	}
	switch {
	case run != nil:
		err = run(os.Args[2:])
	case len(os.Args) == 4 && os.Args[1] == "front":
		transport := &http.Transport{
			// every connection stays open for the whole run, so a
			// (client port, ordinal) names one call
			MaxIdleConnsPerHost: 1024,
			DisableCompression:  true,
		}
		f := &front{client: &http.Client{Transport: transport},
			callURL: "http://" + os.Args[3] + "/call"}
		err = (&http.Server{Handler: f}).Serve(listen(os.Args[2], "front"))
	case len(os.Args) == 3 && os.Args[1] == "back":
		srv := &http.Server{
			Handler: http.HandlerFunc(serveBack),
			ConnContext: func(ctx context.Context, c net.Conn) context.Context {
				port := c.RemoteAddr().(*net.TCPAddr).Port
				return context.WithValue(ctx, connKey{}, &backConn{port: port})
			},
		}
		err = srv.Serve(listen(os.Args[2], "back"))
	default:
		fmt.Fprintln(os.Stderr, "usage: goapp front LISTEN BACKEND | goapp back LISTEN")
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "goapp: %v\n", err)
	os.Exit(1)
}
