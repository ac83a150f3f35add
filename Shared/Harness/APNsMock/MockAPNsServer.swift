import APNs
import Foundation
import HTTP2
import Runtime

/// An APNs look-alike over TLS HTTP/2 for tests and benchmarks: validates pushes like Apple
/// (JWT signature and age, topic, push type, priority, expiration, apns-id, token, payload),
/// answers 410 for unregistered tokens, injects faults, records accepted pushes. Control API on
/// the same listener under `/mock/…` (see `MockAPNsAdmin`).
public final class MockAPNsServer: Sendable {
    public let configuration: MockAPNsConfiguration
    private let server: LockedServer
    private let http: HTTP2Server
    private let state: MockAPNsState
    private let validator: MockAPNsValidator

    /// The bound port.
    public var port: Int { http.port }

    /// Starts listening.
    /// - Throws: `HTTP2Error` (certificate, bind) or `APNsError` (delivery log).
    public init(configuration: MockAPNsConfiguration) throws {
        self.configuration = configuration
        let state = try MockAPNsState(
            faults: configuration.faults, record: configuration.recordDeliveries, maxRecorded: configuration.maxRecorded,
            logFile: configuration.deliveryLogFile)
        self.state = state
        let validator = MockAPNsValidator(
            teamID: configuration.teamID, bundleID: configuration.bundleID, keys: configuration.keys,
            validatePayloads: configuration.validatePayloads)
        self.validator = validator
        let holder = LockedServer()
        self.server = holder
        let clock = configuration.clock
        let http = try HTTP2Server(
            configuration: HTTP2ServerConfiguration(
                host: configuration.host, port: configuration.port, certificateFile: configuration.certificateFile,
                privateKeyFile: configuration.privateKeyFile, maxConcurrentStreams: configuration.maxConcurrentStreams,
                goAwayAfterStreams: configuration.faults.goAwayAfterStreams, threads: configuration.threads),
            handler: { request in
                if request.path.hasPrefix("/mock/") {
                    return MockAPNsAdmin.handle(request, state: state, server: holder)
                }
                return Self.answer(request, state: state, validator: validator, clock: clock)
            })
        holder.set(http)
        self.http = http
        if let streams = configuration.faults.maxConcurrentStreams { http.setMaxConcurrentStreams(streams) }
    }

    deinit { stop() }

    /// Stops the listener and flushes the delivery log.
    public func stop() {
        http.stop()
        state.flushLog()
    }

    // MARK: - Control (also reachable over /mock/…)

    /// Makes `token` answer 410 Unregistered with `timestamp` (ms; default now).
    public func markUnregistered(_ token: String, timestamp: Int64? = nil) {
        state.markUnregistered(token, since: timestamp ?? Int64(configuration.clock.now().timeIntervalSince1970 * 1000))
    }

    /// Replaces the fault settings (GOAWAY and stream limits apply to the HTTP/2 server at once).
    public func setFaults(_ faults: MockAPNsFaults) {
        MockAPNsAdmin.apply(faults, state: state, server: server)
    }

    public var faults: MockAPNsFaults { state.faults }

    /// Accepted pushes for `token` (all tokens when nil), oldest first; only those with a `sequence` above
    /// `since`, at most `limit`.
    public func deliveries(token: String? = nil, since: Int = 0, limit: Int = Int.max) -> [MockAPNsDelivery] {
        state.deliveries(token: token, since: since, limit: limit)
    }

    public var counters: MockAPNsCounters { MockAPNsAdmin.counters(state: state, server: server) }

    /// Clears counters, deliveries, unregistered tokens and faults.
    public func reset() { MockAPNsAdmin.apply(MockAPNsFaults(), state: state, server: server, reset: true) }

    // MARK: - Push handling

    static func answer(
        _ request: HTTP2ServerRequest, state: MockAPNsState, validator: MockAPNsValidator, clock: any WallClock
    ) -> HTTP2ServerResponse {
        let now = clock.now().timeIntervalSince1970
        let faults = state.faults
        let delay: Duration? = faults.latencyMilliseconds > 0 ? .milliseconds(faults.latencyMilliseconds) : nil
        switch validator.validate(request, nowMilliseconds: Int64(now * 1000)) {
        case .reject(let reason, let detail):
            state.noteRejected(reason)
            return rejection(reason, apnsID: request.header("apns-id"), detail: detail, delay: delay)
        case .accept(let delivery):
            if let since = state.unregisteredSince(delivery.token) {
                state.noteRejected(.unregistered)
                return rejection(.unregistered, apnsID: delivery.apnsID, timestamp: since, delay: delay)
            }
            let roll = Double.random(in: 0..<1)
            let injected: APNsReason? =
                faults.throttledTokens.contains(delivery.token) ? .tooManyRequests
                : roll < faults.tooManyRequestsRate ? .tooManyRequests
                : roll < faults.tooManyRequestsRate + faults.internalErrorRate ? .internalServerError
                : roll < faults.tooManyRequestsRate + faults.internalErrorRate + faults.serviceUnavailableRate ? .serviceUnavailable
                : nil
            if let injected {
                state.noteRejected(injected)
                return rejection(injected, apnsID: delivery.apnsID, delay: delay)
            }
            state.noteAccepted(delivery)
            return HTTP2ServerResponse(status: 200, headers: [HTTP2Header("apns-id", delivery.apnsID)], delay: delay)
        }
    }

    static func rejection(_ reason: APNsReason, apnsID: String?, detail: String? = nil, timestamp: Int64? = nil, delay: Duration?) -> HTTP2ServerResponse {
        var body = #"{"reason":"\#(reason.rawValue)""#
        if let timestamp { body += #","timestamp":\#(timestamp)"# }
        if let detail { body += #","detail":"\#(detail.replacingOccurrences(of: "\"", with: "'"))""# }
        body += "}"
        var headers = [HTTP2Header("content-type", "application/json")]
        if let apnsID { headers.append(HTTP2Header("apns-id", apnsID)) }
        return HTTP2ServerResponse(status: reason.status, headers: headers, body: Array(body.utf8), delay: delay)
    }
}
