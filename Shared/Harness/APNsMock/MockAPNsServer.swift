import APNs
import Foundation
import HTTP2
import HTTP2Server
import Runtime

/// An APNs look-alike over TLS HTTP/2 for tests and benchmarks: validates pushes like Apple
/// (JWT signature and age, topic, push type, priority, expiration, apns-id, token, payload),
/// answers 410 for unregistered tokens, injects faults, records accepted pushes. Broadcast channels too:
/// a channel management listener per configured environment (`MockChannelManagement`), `/4/broadcasts` on
/// the push listener (`MockBroadcastValidator`), and the fan-out of each accepted broadcast to the channel's
/// subscribers (each gets a recorded copy, as a device push to its subscriber id). Control API on the push
/// listener under `/mock/…` (see `MockAPNsAdmin`).
public final class MockAPNsServer: Sendable {
    public let configuration: MockAPNsConfiguration
    private let server: LockedServer
    private let http: HTTP2Server
    private let state: MockAPNsState
    private let validator: MockAPNsValidator
    private let channelStore: MockChannelStore
    private let management: [APNsServerEnvironment: HTTP2Server]

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
        let channelStore = MockChannelStore(limit: configuration.channelLimit)
        self.channelStore = channelStore
        let broadcasts = MockBroadcastValidator(bundleID: configuration.bundleID, channels: channelStore, validator: validator)
        let http = try HTTP2Server(
            configuration: HTTP2ServerConfiguration(
                host: configuration.host, port: configuration.port, certificateFile: configuration.certificateFile,
                privateKeyFile: configuration.privateKeyFile, maxConcurrentStreams: configuration.maxConcurrentStreams,
                goAwayAfterStreams: configuration.faults.goAwayAfterStreams, threads: configuration.threads),
            handler: { request in
                if request.path.hasPrefix("/mock/") {
                    return MockAPNsAdmin.handle(request, state: state, channels: channelStore, server: holder)
                }
                if request.path.hasPrefix(MockBroadcastValidator.pathPrefix) {
                    return Self.answerBroadcast(request, state: state, channels: channelStore, validator: broadcasts, clock: clock)
                }
                return Self.answer(request, state: state, validator: validator, clock: clock)
            })
        holder.set(http)
        self.http = http
        var management: [APNsServerEnvironment: HTTP2Server] = [:]
        for (environment, port) in configuration.managementPorts {
            let api = MockChannelManagement(
                environment: environment, bundleID: configuration.bundleID, channels: channelStore, state: state, validator: validator,
                clock: clock)
            management[environment] = try HTTP2Server(
                configuration: HTTP2ServerConfiguration(
                    host: configuration.host, port: port, certificateFile: configuration.certificateFile,
                    privateKeyFile: configuration.privateKeyFile, maxConcurrentStreams: 100),
                handler: { request in api.answer(request) })
        }
        self.management = management
        if let streams = configuration.faults.maxConcurrentStreams { http.setMaxConcurrentStreams(streams) }
    }

    deinit { stop() }

    /// The port of the channel management listener of `environment` (nil when not configured).
    public func managementPort(for environment: APNsServerEnvironment) -> Int? { management[environment]?.port }

    /// Stops the listeners and flushes the delivery log.
    public func stop() {
        http.stop()
        for listener in management.values { listener.stop() }
        state.flushLog()
    }

    // MARK: - Control (also reachable over /mock/…)

    /// Makes `token` answer 410 Unregistered with `timestamp` (ms; default now).
    public func markUnregistered(_ token: String, timestamp: Int64? = nil) {
        state.markUnregistered(token, since: timestamp ?? Int64(configuration.clock.now().timeIntervalSince1970 * 1000))
    }

    /// Replaces the fault settings (GOAWAY and stream limits apply to the HTTP/2 server at once).
    public func setFaults(_ faults: MockAPNsFaults) {
        MockAPNsAdmin.apply(faults, state: state, channels: channelStore, server: server)
    }

    public var faults: MockAPNsFaults { state.faults }

    /// Accepted pushes for `token` (all tokens when nil), oldest first; only those with a `sequence` above
    /// `since`, at most `limit`.
    public func deliveries(token: String? = nil, since: Int = 0, limit: Int = Int.max) -> [MockAPNsDelivery] {
        state.deliveries(token: token, since: since, limit: limit)
    }

    /// Refused pushes (410 for an unregistered token, injected faults) for `token` (all when nil), oldest first; only
    /// those with a `sequence` above `since` (shared with `deliveries`), at most `limit`.
    public func refusals(token: String? = nil, since: Int = 0, limit: Int = Int.max) -> [MockAPNsRefusal] {
        state.refusals(token: token, since: since, limit: limit)
    }

    /// Accepted device pushes to a token that had one accepted before, each with the token's first (`GET /mock/repeats`).
    public func repeats() -> [MockAPNsRepeat] { state.repeats() }

    public var counters: MockAPNsCounters { MockAPNsAdmin.counters(state: state, channels: channelStore, server: server) }

    /// Clears counters, deliveries, unregistered tokens, faults and recorded broadcasts (channels and their
    /// subscribers stay).
    public func reset() { MockAPNsAdmin.apply(MockAPNsFaults(), state: state, channels: channelStore, server: server, reset: true) }

    // MARK: - Channels (also reachable over /mock/channels…)

    /// Every channel with its subscribers.
    public func channels() -> [MockAPNsChannel] { channelStore.channels() }

    /// Subscribes `subscriber` (a simulated activity's id; copies are recorded as pushes to it); false for an unknown channel.
    @discardableResult
    public func subscribe(_ subscriber: String, to channelId: String) -> Bool { channelStore.subscribe(subscriber, to: channelId) }

    @discardableResult
    public func unsubscribe(_ subscriber: String, from channelId: String) -> Bool { channelStore.unsubscribe(subscriber, from: channelId) }

    /// Counted-only subscribers of a channel (benchmarks); false for an unknown channel.
    @discardableResult
    public func setCountedSubscribers(_ count: Int, of channelId: String) -> Bool { channelStore.setCountedSubscribers(count, of: channelId) }

    /// Deletes a channel behind its owner's back (as the capability switch or another tool would); false when unknown.
    @discardableResult
    public func deleteChannel(_ channelId: String) -> Bool { channelStore.delete(channelId, environment: nil) }

    /// Recorded broadcasts (of one channel, or all) with a sequence above `since`, oldest first.
    public func broadcasts(channel: String? = nil, since: Int = 0, limit: Int = Int.max) -> [MockAPNsBroadcast] {
        channelStore.broadcasts(channel: channel, since: since, limit: limit)
    }

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
            func refused(_ reason: APNsReason) {
                state.noteRefused(reason, token: delivery.token, channelId: nil, apnsID: delivery.apnsID, priority: delivery.priority,
                                  apsTimestamp: delivery.apsTimestamp, receivedAt: delivery.receivedAt)
            }
            if let since = state.unregisteredSince(delivery.token) {
                refused(.unregistered)
                return rejection(.unregistered, apnsID: delivery.apnsID, timestamp: since, delay: delay)
            }
            if faults.unregisteredRate > 0, Double.random(in: 0..<1) < faults.unregisteredRate {
                let since = Int64(now * 1000)
                state.markUnregistered(delivery.token, since: since)
                refused(.unregistered)
                return rejection(.unregistered, apnsID: delivery.apnsID, timestamp: since, delay: delay)
            }
            if let injected = faults.injected(throttled: faults.throttledTokens.contains(delivery.token)) {
                refused(injected)
                return rejection(injected, apnsID: delivery.apnsID, delay: delay)
            }
            state.noteAccepted(delivery)
            return HTTP2ServerResponse(status: 200, headers: [HTTP2Header("apns-id", delivery.apnsID)], delay: delay)
        }
    }

    static func answerBroadcast(
        _ request: HTTP2ServerRequest, state: MockAPNsState, channels: MockChannelStore, validator: MockBroadcastValidator, clock: any WallClock
    ) -> HTTP2ServerResponse {
        let nowMilliseconds = Int64(clock.now().timeIntervalSince1970 * 1000)
        let faults = state.faults
        let delay: Duration? = faults.latencyMilliseconds > 0 ? .milliseconds(faults.latencyMilliseconds) : nil
        let requestHeader = request.header("apns-request-id")
        switch validator.validate(request, nowSeconds: nowMilliseconds / 1000, broadcastDisabled: faults.broadcastDisabled) {
        case .reject(let reason, let detail):
            state.noteRejected(reason)
            return rejection(reason, apnsID: nil, requestID: requestHeader, detail: detail, delay: delay)
        case .accept(let channelId, let environment, let requestId, let priority, let expiration):
            if let injected = faults.injected(throttled: faults.throttledChannels.contains(channelId)) {
                state.noteRefused(injected, token: nil, channelId: channelId, apnsID: requestId, priority: priority,
                                  apsTimestamp: nil, receivedAt: nowMilliseconds)
                return rejection(injected, apnsID: nil, requestID: requestId, delay: delay)
            }
            let payload = String(decoding: request.body, as: UTF8.self)
            let (record, subscribers) = channels.accept(
                channelId: channelId, environment: environment, requestId: requestId, priority: priority, expiration: expiration,
                payload: payload, receivedAt: nowMilliseconds)
            state.recordCopies(subscribers.map { subscriber in
                MockAPNsDelivery(
                    apnsID: requestId, token: subscriber, topic: validator.bundleID + ".push-type.liveactivity", pushType: "liveactivity",
                    priority: priority, expiration: expiration, collapseID: nil, payload: payload, receivedAt: nowMilliseconds,
                    connectionID: request.connectionID, channelId: channelId)
            })
            return HTTP2ServerResponse(status: 200, headers: [
                HTTP2Header("apns-request-id", requestId), HTTP2Header("apns-unique-id", record.uniqueId),
            ], delay: delay)
        }
    }

    static func rejection(_ reason: APNsReason, apnsID: String?, requestID: String? = nil, detail: String? = nil, timestamp: Int64? = nil,
                          delay: Duration?) -> HTTP2ServerResponse {
        var body = #"{"reason":"\#(reason.rawValue)""#
        if let timestamp { body += #","timestamp":\#(timestamp)"# }
        if let detail { body += #","detail":"\#(detail.replacingOccurrences(of: "\"", with: "'"))""# }
        body += "}"
        var headers = [HTTP2Header("content-type", "application/json")]
        if let apnsID { headers.append(HTTP2Header("apns-id", apnsID)) }
        if let requestID { headers.append(HTTP2Header("apns-request-id", requestID)) }
        return HTTP2ServerResponse(status: reason.status, headers: headers, body: Array(body.utf8), delay: delay)
    }
}
