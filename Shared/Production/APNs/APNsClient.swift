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
    private let production: HTTP2Client
    private let sandbox: HTTP2Client
    private let logger: Logger
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
        let started = ContinuousClock.now
        inFlight?.increment()
        defer { inFlight?.decrement() }
        let http = push.device.environment == .production ? production : sandbox
        var attempt = 0
        var regenerated = false
        while true {
            attempt += 1
            let authorization: String
            do {
                authorization = try tokens.authorization()
            } catch {
                return finish(APNsOutcome(
                    device: push.device, action: .permanentFailure, status: nil, reason: nil, apnsID: push.apnsID, attempts: attempt,
                    transportError: error.description), started)
            }
            let request = requests.request(push, authorization: authorization)
            var outcome: APNsOutcome
            do {
                let response = try await http.send(request)
                let (reason, timestamp) = Self.parseError(response)
                outcome = APNsOutcome(
                    device: push.device, action: APNsAction.classify(status: response.status, reason: reason), status: response.status,
                    reason: reason, apnsID: push.apnsID, apnsTimestamp: timestamp, attempts: attempt)
            } catch let error as HTTP2Error {
                outcome = APNsOutcome(
                    device: push.device, action: error.isRetryable ? .retry : .permanentFailure, status: nil, reason: nil,
                    apnsID: push.apnsID, attempts: attempt, transportError: error.description)
            } catch {
                outcome = APNsOutcome(
                    device: push.device, action: .permanentFailure, status: nil, reason: nil, apnsID: push.apnsID, attempts: attempt,
                    transportError: "\(error)")
            }
            switch outcome.action {
            case .regenerateJWTAndRetry where !regenerated:
                regenerated = true
                let fresh = (try? tokens.tokenRejected(authorization: authorization)) ?? false
                logger.warning("APNs rejected the provider token as expired", ["newTokenMinted": String(fresh)])
                if fresh { continue }
                return finish(outcome, started)
            default:
                return finish(outcome, started)
            }
        }
    }

    private func finish(_ outcome: APNsOutcome, _ started: ContinuousClock.Instant) -> APNsOutcome {
        var outcome = outcome
        outcome.latency = ContinuousClock.now - started
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
