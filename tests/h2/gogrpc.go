// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)

// gRPC modes of tests/handoff/goapp.go (README.md here), built with it:
//
//	cp tests/handoff/goapp.go tests/h2/gogrpc.go DIR && cd DIR &&
//	    GOPATH=/usr/share/gocode GO111MODULE=off go build -o goapp goapp.go gogrpc.go
//	goapp front-grpc LISTEN_IP:PORT BACKEND_IP:PORT [--proxied] [--tls CERT]
//	goapp back-grpc LISTEN_IP:PORT [--tls KEY CERT]
//
// --tls: over TLS in Go's crypto/tls (credentials.NewTLS), the front
// trusting CERT, the back end serving KEY and CERT.
//
// Debian's golang-google-grpc-dev (grpc-go 1.33) and no protoc: the service
// vpath.h2.Work with its one unary method Call is a grpc.ServiceDesc written
// by hand, and its messages are JSON (a codec registered with
// encoding.RegisterCodec under the name "json", chosen per call with
// grpc.CallContentSubtype: the content-type is application/grpc+json).
//
// front-grpc: goapp's front (net/http server for the client, a stage of one
// call on the handler's goroutine, a wider stage on a goroutine per call)
// whose back-end calls are unary RPCs of ONE grpc.ClientConn, h2c with
// insecure credentials: one TCP connection, every call a stream of it, the
// transport's reader goroutine reading every reply.  A second connection
// ends the front (the truth expects one).
//
// back-grpc: a grpc.Server that names each call by the client port of its
// connection (peer.FromContext) and its HTTP/2 stream id, read by reflection
// from the *transport.Stream that grpc.ServerTransportStreamFromContext
// returns (grpc-go does not export the id).
//
// The front reads the same stream id on its side (the clientStream of the
// call, by reflection) and the local port of its one connection, and fails
// the request when the back end names the call otherwise.  A back end that
// cannot see stream ids (tests/h2/grpc_backend.py: grpcio hides them) sends
// no "stream": the front's id names the call, its port checked as above.
//
// --proxied (tests/h2's nginx variants): BACKEND is a proxy (nginx
// grpc_pass) that makes each call again on a connection of its own to the
// back end, which names that call by its connection's client port and
// "seq", its arrival ordinal on that connection (grpc_backend.py --seq).
// The call's identity is then [port, stream id, proxy's port, seq]: the
// front's stream and the proxy's call for it.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/peer"
)

const grpcMethod = "/vpath.h2.Work/Call"

// grpcCall is a call's request: W microseconds of work, a reply of R bytes
// of padding, Pad the request's own padding.
type grpcCall struct {
	W   int    `json:"w"`
	R   int    `json:"r"`
	Pad string `json:"pad"`
}

// grpcReply names the call: the client port of its connection and its
// stream id (0: the back end cannot tell).
type grpcReply struct {
	Port   int    `json:"port"`
	Stream uint32 `json:"stream,omitempty"`
	// the call's ordinal on its connection, where the back end counts them
	Seq *int   `json:"seq,omitempty"`
	Pad string `json:"pad"`
}

// jsonCodec: messages as JSON, where protoc-generated code would use protobuf.
type jsonCodec struct{}

func (jsonCodec) Marshal(v interface{}) ([]byte, error)      { return json.Marshal(v) }
func (jsonCodec) Unmarshal(data []byte, v interface{}) error { return json.Unmarshal(data, v) }
func (jsonCodec) Name() string                               { return "json" }

// fieldPath follows unexported fields from V (pointers and interfaces
// dereferenced on the way): reflect may read what it may not set.
func fieldPath(v reflect.Value, fields ...string) (reflect.Value, error) {
	for _, field := range fields {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return v, fmt.Errorf("nil before field %s (google.golang.org/grpc changed?)", field)
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return v, fmt.Errorf("%s is no struct (google.golang.org/grpc changed?)", v.Type())
		}
		next := v.FieldByName(field)
		if !next.IsValid() {
			return v, fmt.Errorf("%s has no field %s (google.golang.org/grpc changed?)",
				v.Type(), field)
		}
		v = next
	}
	return v, nil
}

// grpc 1.33: the server's ServerTransportStream is *transport.Stream{id},
// the client's ClientStream *clientStream{attempt: *csAttempt{s:
// *transport.Stream{id}}}; the client's id is set when NewStream returns.
func serverStreamID(ctx context.Context) (uint32, error) {
	s := grpc.ServerTransportStreamFromContext(ctx)
	if s == nil {
		return 0, fmt.Errorf("no transport stream in the call's context")
	}
	v, err := fieldPath(reflect.ValueOf(s), "id")
	if err != nil {
		return 0, err
	}
	return uint32(v.Uint()), nil
}

func clientStreamID(cs grpc.ClientStream) (uint32, error) {
	v, err := fieldPath(reflect.ValueOf(cs), "attempt", "s", "id")
	if err != nil {
		return 0, err
	}
	return uint32(v.Uint()), nil
}

type grpcFront struct {
	conn    *grpc.ClientConn
	port    int64 // local port of the one connection, once dialled
	proxied bool  // the back end's port and seq name the proxy's call
}

// rpc makes a call as grpc.ClientConn.Invoke does (a unary StreamDesc:
// SendMsg ends the stream, RecvMsg reads the reply and the trailers), but
// keeps the stream to read its id.
func (g *grpcFront) rpc(c call) ([]int, error) {
	var id []int
	cs, err := g.conn.NewStream(context.Background(), &grpc.StreamDesc{}, grpcMethod,
		grpc.CallContentSubtype("json"))
	if err != nil {
		return id, err
	}
	in := grpcCall{W: c.workUs, R: c.rep, Pad: strings.Repeat("q", c.req)}
	var out grpcReply
	if err = cs.SendMsg(&in); err == nil {
		err = cs.RecvMsg(&out)
	}
	if err != nil {
		return id, err
	}
	stream, err := clientStreamID(cs)
	if err != nil {
		return id, err
	}
	port := int(atomic.LoadInt64(&g.port))
	if g.proxied {
		if out.Seq == nil {
			return id, fmt.Errorf("the back end behind the proxy names no seq")
		}
		return []int{port, int(stream), out.Port, *out.Seq}, nil
	}
	if out.Port != port || (out.Stream != 0 && out.Stream != stream) {
		return id, fmt.Errorf("the back end names the call [%d, %d], the front [%d, %d]",
			out.Port, out.Stream, port, stream)
	}
	return []int{port, int(stream)}, nil
}

func runFrontGRPC(args []string) error {
	g := &grpcFront{}
	security := grpc.WithInsecure()
	if len(args) >= 4 && args[len(args)-2] == "--tls" {
		pem, err := os.ReadFile(args[len(args)-1])
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s: no certificate", args[len(args)-1])
		}
		security = grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool}))
		args = args[:len(args)-2]
	}
	if len(args) == 3 && args[2] == "--proxied" {
		g.proxied, args = true, args[:2]
	}
	if len(args) != 2 {
		return fmt.Errorf("usage: goapp front-grpc LISTEN BACKEND [--proxied] [--tls CERT]")
	}
	dial := func(ctx context.Context, addr string) (net.Conn, error) {
		if atomic.LoadInt64(&g.port) != 0 {
			// the truth names calls by the first connection's port
			fmt.Fprintln(os.Stderr, "goapp front-grpc: the back-end connection was lost")
			os.Exit(1)
		}
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			atomic.StoreInt64(&g.port, int64(c.LocalAddr().(*net.TCPAddr).Port))
		}
		return c, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, args[1], security, grpc.WithBlock(),
		grpc.WithContextDialer(dial))
	if err != nil {
		return err
	}
	g.conn = conn
	f := &front{rpc: g.rpc}
	return (&http.Server{Handler: f}).Serve(listen(args[0], "front"))
}

type backGRPC struct{}

func (backGRPC) call(ctx context.Context, in *grpcCall) (*grpcReply, error) {
	stream, err := serverStreamID(ctx)
	if err != nil {
		return nil, err
	}
	p, ok := peer.FromContext(ctx)
	if !ok {
		return nil, fmt.Errorf("no peer in the call's context")
	}
	addr, ok := p.Addr.(*net.TCPAddr)
	if !ok {
		return nil, fmt.Errorf("peer %v is not TCP", p.Addr)
	}
	if in.W > 0 {
		time.Sleep(time.Duration(in.W) * time.Microsecond)
	}
	return &grpcReply{Port: addr.Port, Stream: stream, Pad: strings.Repeat("r", in.R)}, nil
}

// What protoc-gen-go-grpc would write for "service Work { rpc Call }".
var workService = grpc.ServiceDesc{
	ServiceName: "vpath.h2.Work",
	HandlerType: (*interface{})(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Call",
		Handler: func(srv interface{}, ctx context.Context, dec func(interface{}) error,
			_ grpc.UnaryServerInterceptor) (interface{}, error) {
			var in grpcCall
			if err := dec(&in); err != nil {
				return nil, err
			}
			return srv.(backGRPC).call(ctx, &in)
		},
	}},
	Metadata: "gogrpc.go",
}

func runBackGRPC(args []string) error {
	var opts []grpc.ServerOption
	if len(args) == 4 && args[1] == "--tls" {
		creds, err := credentials.NewServerTLSFromFile(args[3], args[2])
		if err != nil {
			return err
		}
		opts, args = append(opts, grpc.Creds(creds)), args[:1]
	}
	if len(args) != 1 {
		return fmt.Errorf("usage: goapp back-grpc LISTEN [--tls KEY CERT]")
	}
	srv := grpc.NewServer(opts...)
	srv.RegisterService(&workService, backGRPC{})
	return srv.Serve(listen(args[0], "back"))
}

// runLoadGRPC (tests/bench/grpc.sh): unary calls as fast as G goroutines
// make them on one grpc.ClientConn for SECONDS; prints how many.
func runLoadGRPC(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: goapp load-grpc BACKEND SECONDS GOROUTINES")
	}
	secs, err1 := strconv.ParseFloat(args[1], 64)
	n, err2 := strconv.Atoi(args[2])
	if err1 != nil || err2 != nil || secs <= 0 || n <= 0 {
		return fmt.Errorf("load-grpc: SECONDS and GOROUTINES must be positive numbers")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, args[0], grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		return err
	}
	defer conn.Close()
	var calls, failed int64
	stop := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := grpcCall{R: 16, Pad: "q"}
			for time.Now().Before(stop) {
				var out grpcReply
				if conn.Invoke(context.Background(), grpcMethod, &in, &out,
					grpc.CallContentSubtype("json")) != nil {
					atomic.AddInt64(&failed, 1)
					continue
				}
				atomic.AddInt64(&calls, 1)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start).Seconds()
	fmt.Printf("calls=%d failed=%d seconds=%.3f calls_per_s=%.1f\n", calls, failed, took,
		float64(calls)/took)
	os.Exit(0) // main reports the end of a server's run as an error
	return nil
}

// Registered before main runs, so goapp.go names no gRPC symbol.
func init() {
	encoding.RegisterCodec(jsonCodec{})
	extraModes["front-grpc"] = runFrontGRPC
	extraModes["back-grpc"] = runBackGRPC
	extraModes["load-grpc"] = runLoadGRPC
}
