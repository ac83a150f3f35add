import Reactor
import Glibc
import HTTP2
import Synchronization

/// A TLS HTTP/2 server (ALPN h2) on dedicated event-loop threads, answering every request with a
/// handler closure. Made for mock-apns and tests: it can lower or raise MAX_CONCURRENT_STREAMS at
/// run time and send GOAWAY after a given number of streams per connection.
public final class HTTP2Server: Sendable {
    public let configuration: HTTP2ServerConfiguration
    /// The bound port (useful when the configuration asked for 0).
    public let port: Int
    private let loops: [EventLoop]
    private let registries: [LoopBound<ServerLoopRegistry>]
    private let shared: ServerShared
    private let listenFD: Int32
    private let listener: LoopBound<ServerListener>
    private let stopped = Atomic<Bool>(false)

    /// Binds, loads the certificate and starts the loop threads.
    /// - Throws: `HTTP2Error.tls` (certificate or key) or `.bindFailed`.
    public init(configuration: HTTP2ServerConfiguration, handler: @escaping HTTP2RequestHandler) throws {
        self.configuration = configuration
        let tls = try TLSContext.server(certificateFile: configuration.certificateFile, privateKeyFile: configuration.privateKeyFile)
        let (fd, port) = try Socket.listen(host: configuration.host, port: configuration.port)
        self.listenFD = fd
        self.port = port
        var loops: [EventLoop] = []
        for index in 0..<configuration.threads { loops.append(try EventLoop(name: "h2-server-\(port)-\(index)")) }
        self.loops = loops
        let registries = loops.map { _ in LoopBound(ServerLoopRegistry()) }
        self.registries = registries
        let shared = ServerShared(configuration: configuration, handler: handler)
        self.shared = shared
        let listener = LoopBound(ServerListener(fd: fd, loops: loops, registries: registries, tls: tls, shared: shared))
        self.listener = listener
        for loop in loops { loop.start() }
        let first = loops[0]
        first.execute { first.register(fd, handler: listener.value) }
    }

    deinit { stop() }

    /// Stops accepting, closes every connection and stops the threads.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let fd = listenFD
        let first = loops[0]
        first.execute {
            first.unregister(fd)
            close(fd)
        }
        for (loop, registry) in zip(loops, registries) {
            loop.execute {
                for connection in registry.value.all { connection.close(reason: "server stopped") }
            }
        }
        for loop in loops { loop.stop() }
    }

    /// Announces a new SETTINGS_MAX_CONCURRENT_STREAMS to every open and future connection.
    public func setMaxConcurrentStreams(_ value: Int) {
        shared.maxConcurrentStreams.store(value, ordering: .relaxed)
        for (loop, registry) in zip(loops, registries) {
            loop.execute {
                for connection in registry.value.all { connection.submitSettings(maxConcurrentStreams: value) }
            }
        }
    }

    /// Sends GOAWAY on each connection once it has opened `streams` streams (nil or 0: never).
    public func setGoAwayAfterStreams(_ streams: Int?) {
        shared.goAwayAfterStreams.store(streams ?? 0, ordering: .relaxed)
    }

    /// Connections accepted so far.
    public var connectionsAccepted: Int { shared.accepted.load(ordering: .relaxed) }
    /// Streams opened so far (requests received).
    public var streamsOpened: Int { shared.streams.load(ordering: .relaxed) }
    /// GOAWAY frames sent.
    public var goAwaysSent: Int { shared.goAwaysSent.load(ordering: .relaxed) }
    /// The most streams ever open at once on one connection.
    public var peakConcurrentStreams: Int { shared.peakStreams.load(ordering: .relaxed) }
}
