// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)

// Java front end of the hand-off workloads (README.md here), JDK only:
//
//   java HandoffFront LISTEN_IP:PORT BACKEND_IP:PORT [--http]
//
// com.sun.net.httpserver.HttpServer on a fixed pool of handler threads.  A
// handler runs a request's plan (tests/handoff/client.py's plan_text) by
// fanning each stage out as CompletableFutures on a fixed pool of 4 worker
// threads and joining them; a call marked delayed goes through
// CompletableFuture.delayedExecutor (1 ms on the JDK's timer thread first).
// A worker borrows one of POOL persistent connections to the back end
// (tests/evloop/backend.py, one JSON line each way) from a blocking queue,
// so a request's calls go out on threads that never saw the request.
// With --http (run.sh --app java-http) the calls are HTTP/1.1 on the same
// pooled sockets (tests/evloop/backend_http.py, POST /call) and carry the
// request's trace id, from the client's traceparent, in a traceparent with
// a new parent id, as a tracing agent forwards it.

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class HandoffFront {
    static final int HANDLERS = 8, WORKERS = 4, POOL = 3;
    static final Pattern IDENTITY = Pattern.compile("\"port\": (\\d+), \"ord\": (\\d+)");
    static final Pattern TRACEPARENT = Pattern.compile("^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$");
    static boolean http;

    static final class BackendConn {
        final Socket sock;
        final OutputStream out;
        final BufferedReader in;

        BackendConn(InetSocketAddress addr) throws IOException {
            sock = new Socket();
            sock.setTcpNoDelay(true);
            sock.connect(addr, 10000);
            out = sock.getOutputStream();
            in = new BufferedReader(new InputStreamReader(sock.getInputStream(),
                    StandardCharsets.US_ASCII));
        }

        // Returns "[client port, ordinal]", the call's identity at the back end.
        String call(String traceId, int workUs, int query, int reply) throws IOException {
            String msg = "{\"w\": " + workUs + ", \"r\": " + reply + ", \"pad\": \""
                    + "q".repeat(query) + "\"}" + (http ? "" : "\n");
            if (http)
                msg = "POST /call HTTP/1.1\r\nHost: backend\r\ntraceparent: 00-" + traceId + "-"
                        + String.format(Locale.ROOT, "%016x", ThreadLocalRandom.current().nextLong())
                        + "-01\r\nContent-Type: application/json\r\nContent-Length: " + msg.length()
                        + "\r\n\r\n" + msg;
            out.write(msg.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String line = http ? httpReplyBody() : in.readLine();
            if (line == null)
                throw new IOException("the back end closed a pooled connection");
            Matcher m = IDENTITY.matcher(line);
            if (!m.find())
                throw new IOException("back-end reply without its identity");
            return "[" + m.group(1) + ", " + m.group(2) + "]";
        }

        // An HTTP/1.1 reply's body (ASCII, Content-Length); null at the end of the stream.
        String httpReplyBody() throws IOException {
            String status = in.readLine();
            if (status == null)
                return null;
            if (!status.startsWith("HTTP/1.1 200"))
                throw new IOException("back end: " + status);
            int length = -1;
            for (String h; (h = in.readLine()) != null && !h.isEmpty();)
                if (h.regionMatches(true, 0, "Content-Length:", 0, 15))
                    length = Integer.parseInt(h.substring(15).trim());
            if (length < 0)
                throw new IOException("back-end reply without Content-Length");
            char[] body = new char[length];
            for (int got = 0, n; got < length; got += n)
                if ((n = in.read(body, got, length - got)) < 0)
                    return null;
            return new String(body);
        }
    }

    final BlockingQueue<BackendConn> pool = new ArrayBlockingQueue<>(POOL);
    final ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
    final Executor delayed = CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS, workers);

    String backendCall(String traceId, int workUs, int query, int reply) {
        BackendConn conn;
        try {
            conn = pool.take();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        try {
            return conn.call(traceId, workUs, query, reply);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            pool.add(conn);
        }
    }

    // A stage is "d.w.q.r,d.w.q.r"; returns the identities of its calls in order.
    List<String> runStage(String traceId, String stage) {
        List<CompletableFuture<String>> futures = new ArrayList<>();
        for (String c : stage.split(",")) {
            String[] f = c.split("\\.");
            if (f.length != 4)
                throw new IllegalArgumentException("bad call " + c);
            int w = Integer.parseInt(f[1]), q = Integer.parseInt(f[2]), r = Integer.parseInt(f[3]);
            Executor on = f[0].equals("0") ? workers : delayed;
            futures.add(CompletableFuture.supplyAsync(() -> backendCall(traceId, w, q, r), on));
        }
        CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).join();
        List<String> ids = new ArrayList<>();
        for (CompletableFuture<String> f : futures)
            ids.add(f.join());
        return ids;
    }

    void handle(HttpExchange ex) throws IOException {
        int status = 200;
        String out;
        try {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.US_ASCII);
            int nl = body.indexOf('\n');
            String plan = nl < 0 ? body : body.substring(0, nl);
            long id = Long.parseLong(ex.getRequestHeaders().getFirst("X-Request-Id"));
            // A request without one starts a trace of its own, as an agent does.
            String tp = ex.getRequestHeaders().getFirst("traceparent");
            Matcher m = TRACEPARENT.matcher(tp == null ? "" : tp);
            String traceId = m.matches() ? m.group(1)
                    : String.format(Locale.ROOT, "%016x%016x", ThreadLocalRandom.current().nextLong(),
                            ThreadLocalRandom.current().nextLong());
            List<String> calls = new ArrayList<>();
            if (!plan.isEmpty())
                for (String stage : plan.split("\\|"))
                    calls.addAll(runStage(traceId, stage));
            out = "{\"id\": " + id + ", \"calls\": [" + String.join(", ", calls) + "]}";
        } catch (RuntimeException e) {
            System.err.println("HandoffFront: " + e);
            status = 500;
            out = e.toString();
        }
        byte[] bytes = out.getBytes(StandardCharsets.US_ASCII);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    static InetSocketAddress address(String s) {
        int colon = s.lastIndexOf(':');
        return new InetSocketAddress(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1)));
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2 && !(args.length == 3 && args[2].equals("--http"))) {
            System.err.println("usage: java HandoffFront LISTEN_IP:PORT BACKEND_IP:PORT [--http]");
            System.exit(2);
        }
        http = args.length == 3;
        HandoffFront front = new HandoffFront();
        for (int i = 0; i < POOL; i++)
            front.pool.add(new BackendConn(address(args[1])));
        HttpServer server = HttpServer.create(address(args[0]), 64);
        server.createContext("/", front::handle);
        server.setExecutor(Executors.newFixedThreadPool(HANDLERS));
        server.start();
        System.err.println("HandoffFront: listening on " + args[0]);
    }
}
