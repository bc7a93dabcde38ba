// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)

// HTTP/2 modes of tests/handoff/goapp.go (README.md here), built with it:
//
//	cp tests/handoff/goapp.go tests/h2/goh2.go DIR && cd DIR &&
//	    go build -o goapp goapp.go goh2.go   (one directory: go build wants that)
//	goapp front-h2 LISTEN_IP:PORT BACKEND_IP:PORT [--tls CERT]
//	goapp back-h2 LISTEN_IP:PORT [--tls KEY CERT]
//
// front-h2: goapp's front (net/http server for the client, a stage of one
// call on the handler's goroutine, a wider stage on a goroutine per call)
// whose back-end calls go through golang.org/x/net/http2's Transport in h2c
// with prior knowledge: one TCP connection, every call a stream of it, the
// Transport's read loop goroutine reading every reply.
//
// back-h2: an h2c server (h2c.NewHandler) that names each call by the
// client port of its connection (X-Conn-Port) and its stream id (in
// X-Conn-Ord, where goapp's HTTP/1.1 back end puts the ordinal): the scorer
// turns stream ids into ordinals (README.md here).  Counting arrivals in the
// handlers would race (each stream's handler runs on a goroutine of its
// own), and (id - 1) / 2 is not the ordinal: with AllowHTTP x/net's
// Transport leaves stream 1 to an h2c upgrade and opens 3 first.
//
// --tls: the same over TLS with ALPN h2 (crypto/tls, compiled in): the
// front trusts CERT (self-signed, the back end's address in it), the back
// end serves KEY and CERT through x/net's http2.ConfigureServer.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"reflect"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
)

// streamID reads the stream id of the request W answers, which x/net's
// server does not export.  W is h2c's
// *http2.responseWriter{rws: *responseWriterState{stream: *stream{id}}};
// reflect may read unexported fields.
func streamID(w http.ResponseWriter) (uint32, error) {
	v := reflect.ValueOf(w)
	for _, field := range []string{"rws", "stream", "id"} {
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return 0, fmt.Errorf("%T has no stream id (golang.org/x/net changed?)", w)
		}
		v = v.FieldByName(field)
		if !v.IsValid() {
			return 0, fmt.Errorf("%T has no field %s (golang.org/x/net changed?)", w, field)
		}
	}
	return uint32(v.Uint()), nil
}

func serveBackH2(w http.ResponseWriter, r *http.Request) {
	id, err := streamID(w)
	var addr *net.TCPAddr
	if err == nil {
		addr, err = net.ResolveTCPAddr("tcp", r.RemoteAddr)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	answerCall(w, r, addr.Port, int64(id))
}

func runFrontH2(args []string) error {
	if len(args) == 4 && args[2] == "--tls" {
		return runFrontH2TLS(args[0], args[1], args[3])
	}
	if len(args) != 2 {
		return fmt.Errorf("usage: goapp front-h2 LISTEN BACKEND [--tls CERT]")
	}
	transport := &http2.Transport{
		// h2c with prior knowledge: an http:// URL, and a plain TCP
		// connection where the Transport would dial TLS
		AllowHTTP: true,
		DialTLS: func(network, addr string, _ *tls.Config) (net.Conn, error) {
			return net.Dial(network, addr)
		},
		DisableCompression: true,
	}
	f := &front{client: &http.Client{Transport: transport}, callURL: "http://" + args[1] + "/call"}
	return (&http.Server{Handler: f}).Serve(listen(args[0], "front"))
}

// The front over TLS: x/net's Transport dials crypto/tls with ALPN h2.
func runFrontH2TLS(listenAddr, backend, certFile string) error {
	pem, err := os.ReadFile(certFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: no certificate", certFile)
	}
	transport := &http2.Transport{
		TLSClientConfig:    &tls.Config{RootCAs: pool, NextProtos: []string{"h2"}},
		DisableCompression: true,
	}
	f := &front{client: &http.Client{Transport: transport}, callURL: "https://" + backend + "/call"}
	return (&http.Server{Handler: f}).Serve(listen(listenAddr, "front"))
}

func runBackH2(args []string) error {
	if len(args) == 4 && args[1] == "--tls" {
		srv := &http.Server{Handler: http.HandlerFunc(serveBackH2)}
		if err := http2.ConfigureServer(srv, &http2.Server{}); err != nil {
			return err
		}
		return srv.ServeTLS(listen(args[0], "back"), args[3], args[2])
	}
	if len(args) != 1 {
		return fmt.Errorf("usage: goapp back-h2 LISTEN [--tls KEY CERT]")
	}
	h := h2c.NewHandler(http.HandlerFunc(serveBackH2), &http2.Server{})
	return (&http.Server{Handler: h}).Serve(listen(args[0], "back"))
}

// Registered before main runs, so goapp.go names no x/net symbol.
func init() {
	extraModes["front-h2"] = runFrontH2
	extraModes["back-h2"] = runBackH2
}
