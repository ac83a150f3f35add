import Reactor
import Glibc
import HTTP2
import Synchronization

/// State every loop of one server reads: the handler, run-time settings and counters.
final class ServerShared: Sendable {
    let handler: HTTP2RequestHandler
    let maxBodySize: Int
    let maxConcurrentStreams: Atomic<Int>
    /// 0 = never.
    let goAwayAfterStreams: Atomic<Int>
    let accepted = Atomic<Int>(0)
    let streams = Atomic<Int>(0)
    let goAwaysSent = Atomic<Int>(0)
    let peakStreams = Atomic<Int>(0)
    let nextConnectionID = Atomic<Int>(1)

    init(configuration: HTTP2ServerConfiguration, handler: @escaping HTTP2RequestHandler) {
        self.handler = handler
        self.maxBodySize = configuration.maxBodySize
        self.maxConcurrentStreams = Atomic(configuration.maxConcurrentStreams)
        self.goAwayAfterStreams = Atomic(configuration.goAwayAfterStreams ?? 0)
    }

    func noteStreamOpened(active: Int) {
        streams.add(1, ordering: .relaxed)
        var current = peakStreams.load(ordering: .relaxed)
        while active > current {
            let (exchanged, original) = peakStreams.compareExchange(expected: current, desired: active, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// The server connections living on one loop (so settings changes can reach them). Loop-confined.
final class ServerLoopRegistry {
    private var connections: [ObjectIdentifier: ServerConnection] = [:]

    func add(_ connection: ServerConnection) { connections[ObjectIdentifier(connection)] = connection }
    func remove(_ connection: ServerConnection) { connections[ObjectIdentifier(connection)] = nil }
    var all: [ServerConnection] { Array(connections.values) }
}

/// Accepts connections on the listening socket and hands each to a loop, round-robin.
final class ServerListener: EventLoopHandler {
    private let fd: Int32
    private let loops: [EventLoop]
    private let registries: [LoopBound<ServerLoopRegistry>]
    private let tls: TLSContext
    private let shared: ServerShared
    private var next = 0

    init(fd: Int32, loops: [EventLoop], registries: [LoopBound<ServerLoopRegistry>], tls: TLSContext, shared: ServerShared) {
        self.fd = fd
        self.loops = loops
        self.registries = registries
        self.tls = tls
        self.shared = shared
    }

    func handleEvents(readable: Bool, writable: Bool, failed: Bool) {
        for _ in 0..<256 {
            let client = accept(fd, nil, nil)
            if client < 0 { return }
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            Socket.setNoDelay(client)
            shared.accepted.add(1, ordering: .relaxed)
            let index = next % loops.count
            next += 1
            let loop = loops[index]
            let registry = registries[index]
            let tls = self.tls
            let shared = self.shared
            let id = shared.nextConnectionID.add(1, ordering: .relaxed).newValue
            loop.execute {
                guard let stream = try? TLSStream(server: tls, fd: client) else {
                    close(client)
                    return
                }
                let connection = ServerConnection(id: id, loop: loop, fd: client, tls: stream, shared: shared, registry: registry.value)
                registry.value.add(connection)
                connection.attach()
            }
        }
    }
}
