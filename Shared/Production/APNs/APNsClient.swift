import Foundation
import HTTP2
import Runtime

/// Sends pushes to APNs over HTTP/2: one connection pool per environment (production, sandbox),
/// one shared provider token, the reason → action mapping and one JWT regeneration on
/// ExpiredProviderToken. One attempt per push: a `.retry` answer is returned to the caller, which owns the
/// back-off (apns-sender's `RetryScheduler`).
public final class APNsClient: Sendable {
    public let configuration: APNsClientConfiguration
    public let tokens: APNsTokenProvider
    public let requests: APNsRequestFactory
    let production: HTTP2Client
    let sandbox: HTTP2Client
    let logger: Logger
    let metrics: MetricsRegistry?
    private let pushCounters: APNsPushCounters?
    private let latency: Histogram?
    private let inFlight: Gauge?

    /// Creates both pools (connections open on first use).
    /// - Throws: `APNsError` for a bad refresh interval or key, `HTTP2Error.tls` for a bad CA file.
    public init(configuration: APNsClientConfiguration, logger: Logger = Logger(label: "apns"), metrics: MetricsRegistry? = nil) throws {
        self.configuration = configuration
        self.tokens = try APNsTokenProvider(
            teamID: configuration.teamID, keyID: configuration.keyID, key: configuration.signingKey,
            clock: configuration.clock, refreshInterval: configuration.tokenRefreshInterval)
        self.requests = APNsRequestFactory(bundleID: configuration.bundleID)
        func pool(_ endpoint: APNsEndpoint) throws -> HTTP2Client {
            try HTTP2Client(
                configuration: HTTP2ClientConfiguration(
                    host: endpoint.host, port: endpoint.port, serverName: endpoint.serverName, caFile: configuration.caFile,
                    connections: configuration.connectionsPerHost, maxStreamsPerConnection: configuration.maxStreamsPerConnection,
                    requestTimeout: configuration.requestTimeout),
                logger: logger.child("http2"))
        }
        self.production = try pool(configuration.production)
        self.sandbox = try pool(configuration.sandbox)
        self.logger = logger
        self.metrics = metrics
        self.pushCounters = metrics.map(APNsPushCounters.init(registry:))
        self.latency = metrics?.histogram("apns_send_seconds", help: "Time from first attempt to final APNs answer")
        self.inFlight = metrics?.gauge("apns_in_flight", help: "Pushes waiting for an APNs answer")
    }

    /// The HTTP/2 statistics of one environment's pool.
    public func statistics(for environment: APNsServerEnvironment) -> HTTP2ClientStatistics {
        environment == .production ? production.statistics : sandbox.statistics
    }

    /// Closes every connection.
    public func shutdown() {
        production.shutdown()
        sandbox.shutdown()
    }

    /// Sends one push and returns its outcome (never throws).
    public func send(_ push: APNsPush) async -> APNsOutcome {
        inFlight?.increment()
        defer { inFlight?.decrement() }
        return await send([push], over: push.device.environment == .production ? production : sandbox)[0]
    }

    /// Sends `pushes` all at once (one batch per environment; the HTTP/2 pool queues what exceeds the
    /// streams) and returns one outcome per push, in their order (never throws). Pushes APNs refuses
    /// with ExpiredProviderToken are sent once more with a new provider token.
    public func send(_ pushes: [APNsPush]) async -> [APNsOutcome] {
        await send(pushes, answered: nil)
    }

    /// As `send(_:)`, and reports the answers while the batch runs (`APNsAnswerReport`, on the HTTP/2 loop thread).
    public func send(_ pushes: [APNsPush], answered: APNsAnswerReport?) async -> [APNsOutcome] {
        guard !pushes.isEmpty else { return [] }
        inFlight?.increment(by: Double(pushes.count))
        defer { inFlight?.decrement(by: Double(pushes.count)) }
        let sandboxIndices = pushes.indices.filter { pushes[$0].device.environment == .sandbox }
        if sandboxIndices.isEmpty { return await send(pushes, over: production, answered: answered) }
        if sandboxIndices.count == pushes.count { return await send(pushes, over: sandbox, answered: answered) }
        let sandboxSet = Set(sandboxIndices)
        let productionIndices = pushes.indices.filter { !sandboxSet.contains($0) }
        async let sandboxOutcomes = send(sandboxIndices.map { pushes[$0] }, over: sandbox, answered: answered?.mapping(sandboxIndices))
        let productionOutcomes = await send(productionIndices.map { pushes[$0] }, over: production,
                                            answered: answered?.mapping(productionIndices))
        var outcomes = [APNsOutcome?](repeating: nil, count: pushes.count)
        for (index, outcome) in zip(productionIndices, productionOutcomes) { outcomes[index] = outcome }
        for (index, outcome) in zip(sandboxIndices, await sandboxOutcomes) { outcomes[index] = outcome }
        return outcomes.map { $0! }
    }

    /// One environment's pushes: one batch, then at most one more for those refused with an expired
    /// provider token, if a new one could be minted.
    private func send(_ pushes: [APNsPush], over http: HTTP2Client, answered: APNsAnswerReport? = nil) async -> [APNsOutcome] {
        let started = ContinuousClock.now
        var outcomes = await attempt(pushes, indices: Array(pushes.indices), number: 1, over: http, answered: answered)
        let rejected = outcomes.indices.filter { outcomes[$0].outcome.action == .regenerateJWTAndRetry }
        if !rejected.isEmpty, let authorization = outcomes[rejected[0]].authorizationUsed {
            let fresh = (try? tokens.tokenRejected(authorization: authorization)) ?? false
            logger.warning("APNs rejected the provider token as expired", [
                "newTokenMinted": String(fresh), "pushes": String(rejected.count),
            ])
            if fresh {
                let again = await attempt(pushes, indices: rejected, number: 2, over: http, answered: answered)
                for (index, retried) in zip(rejected, again) {
                    outcomes[index] = retried
                    outcomes[index].outcome.latency = ContinuousClock.now - started
                }
            }
        }
        return outcomes.map { finish($0.outcome) }
    }

    /// An outcome and the authorization header its request carried (to say which token APNs refused).
    private struct Attempted {
        var outcome: APNsOutcome
        var authorizationUsed: String?
    }

    /// Sends `pushes[indices]` as one batch; one result per index, in the same order.
    private func attempt(_ pushes: [APNsPush], indices: [Int], number: Int, over http: HTTP2Client, answered: APNsAnswerReport? = nil)
        async -> [Attempted]
    {
        let authorization: String
        do {
            authorization = try tokens.authorization()
        } catch {
            return indices.map { index in
                Attempted(outcome: APNsOutcome(
                    device: pushes[index].device, action: .permanentFailure, status: nil, reason: nil,
                    apnsID: pushes[index].apnsID, attempts: number, transportError: error.description), authorizationUsed: nil)
            }
        }
        let progress = answered.map { answered in
            HTTP2BatchProgress(every: answered.every) { batch in
                answered.report(batch.map { position, answer in
                    (indices[position], Self.outcome(of: pushes[indices[position]], answer, attempt: number))
                })
            }
        }
        let answers = await http.send(indices.map { requests.request(pushes[$0], authorization: authorization) }, progress: progress)
        return zip(indices, answers).map { index, answer in
            Attempted(outcome: Self.outcome(of: pushes[index], answer, attempt: number), authorizationUsed: authorization)
        }
    }

    /// What one HTTP/2 answer means for `push`.
    private static func outcome(of push: APNsPush, _ answer: HTTP2BatchResult, attempt number: Int) -> APNsOutcome {
        var outcome: APNsOutcome
        switch answer.result {
        case .success(let response):
            let (reason, timestamp) = parseError(response)
            outcome = APNsOutcome(
                device: push.device, action: APNsAction.classify(status: response.status, reason: reason), status: response.status,
                reason: reason, apnsID: push.apnsID, apnsTimestamp: timestamp, attempts: number)
        case .failure(let error):
            outcome = APNsOutcome(
                device: push.device, action: error.isRetryable ? .retry : .permanentFailure, status: nil, reason: nil,
                apnsID: push.apnsID, attempts: number, transportError: error.description)
        }
        outcome.latency = answer.elapsed
        return outcome
    }

    private func finish(_ outcome: APNsOutcome) -> APNsOutcome {
        latency?.observe(outcome.latency)
        pushCounters?.count(outcome)
        return outcome
    }

    /// Reads `{"reason":…, "timestamp":…}` from an error response.
    static func parseError(_ response: HTTP2Response) -> (APNsReason?, Int64?) {
        guard response.status != 200, !response.body.isEmpty else { return (nil, nil) }
        struct Body: Decodable {
            var reason: String?
            var timestamp: Int64?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)) else { return (nil, nil) }
        return (body.reason.map(APNsReason.init(rawValue:)), body.timestamp)
    }
}
