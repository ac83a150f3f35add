import Synchronization

/// Counters an `HTTP2Client` keeps, readable from any thread.
public final class HTTP2ClientStatistics: Sendable {
    let opened = Atomic<Int>(0)
    let failedConnects = Atomic<Int>(0)
    let goAways = Atomic<Int>(0)
    let requeued = Atomic<Int>(0)
    let pings = Atomic<Int>(0)
    let peakStreams = Atomic<Int>(0)

    init() {}

    /// Connections that completed TLS and received the server's SETTINGS.
    public var connectionsOpened: Int { opened.load(ordering: .relaxed) }
    /// Connection attempts that failed (TCP, TLS, ALPN or timeout).
    public var connectFailures: Int { failedConnects.load(ordering: .relaxed) }
    /// GOAWAY frames received.
    public var goAwaysReceived: Int { goAways.load(ordering: .relaxed) }
    /// Requests sent again because the server had not processed them (GOAWAY, REFUSED_STREAM).
    public var requestsRequeued: Int { requeued.load(ordering: .relaxed) }
    /// Keepalive PINGs sent.
    public var pingsSent: Int { pings.load(ordering: .relaxed) }
    /// The most streams ever open at once on one connection.
    public var peakStreamsPerConnection: Int { peakStreams.load(ordering: .relaxed) }

    func notePeak(_ value: Int) {
        var current = peakStreams.load(ordering: .relaxed)
        while value > current {
            let (exchanged, original) = peakStreams.compareExchange(expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
