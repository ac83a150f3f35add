import Foundation
import HTTP2
import Runtime

/// Why a channel-management call failed: APNs's answer (status and reason) or the transport's.
public struct APNsChannelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation: "create", "read", "delete" or "list".
    public var operation: String
    public var environment: APNsServerEnvironment
    /// HTTP status, nil when no answer arrived.
    public var status: Int?
    public var reason: APNsReason?
    /// Transport error text when there was no answer (or the answer lacked what the call needs).
    public var transportError: String?

    /// What to do: `.retry` (no answer, 429, 5xx), `.channelInvalid` (ChannelNotRegistered, BadChannelId),
    /// `.permanentFailure` (FeatureNotEnabled, CannotCreateChannelConfig, bad requests, …).
    public var action: APNsAction {
        if status == nil { return transportRetryable ? .retry : .permanentFailure }
        let action = APNsAction.classify(status: status, reason: reason)
        return action == .delivered ? .permanentFailure : action
    }

    /// True when the same call may succeed later.
    public var isRetryable: Bool { action == .retry || action == .regenerateJWTAndRetry }

    var transportRetryable = true

    public var description: String {
        let what = status.map { "HTTP \($0)" + (reason.map { " \($0.rawValue)" } ?? "") } ?? (transportError ?? "no answer")
        return "channel \(operation) (\(environment.rawValue)) failed: \(what)"
    }
}

/// APNs's broadcast channel management API (`api-manage-broadcast(.sandbox).push.apple.com`, ports 2196 /
/// 2195): create, read, delete and list the app's channels, over its own HTTP/2 pool per environment (other
/// hosts than the pushes'), signed with the same provider token as the pushes.
public final class APNsChannelClient: Sendable {
    public let requests: APNsRequestFactory
    private let production: HTTP2Client
    private let sandbox: HTTP2Client
    private let exchange: APNsExchange
    private let metrics: MetricsRegistry?

    /// Creates both pools (connections open on first use). `tokens` is the provider token source the pushes use.
    /// - Throws: `HTTP2Error.tls` for a bad CA file.
    public init(bundleID: String, tokens: APNsTokenProvider, production: APNsEndpoint = .manageProduction,
                sandbox: APNsEndpoint = .manageSandbox, caFile: String? = nil, requestTimeout: Duration = .seconds(10),
                logger: Logger = Logger(label: "apns.channels"), metrics: MetricsRegistry? = nil) throws {
        requests = APNsRequestFactory(bundleID: bundleID)
        func pool(_ endpoint: APNsEndpoint) throws -> HTTP2Client {
            try HTTP2Client(
                configuration: HTTP2ClientConfiguration(
                    host: endpoint.host, port: endpoint.port, serverName: endpoint.serverName, caFile: caFile, connections: 1,
                    maxStreamsPerConnection: 16, requestTimeout: requestTimeout),
                logger: logger.child("http2"))
        }
        self.production = try pool(production)
        self.sandbox = try pool(sandbox)
        exchange = APNsExchange(tokens: tokens, logger: logger)
        self.metrics = metrics
    }

    /// Closes every connection.
    public func shutdown() {
        production.shutdown()
        sandbox.shutdown()
    }

    /// Creates a Live Activity channel. `requestID` (a UUID, `apns-request-id`) names the attempt.
    public func createChannel(environment: APNsServerEnvironment, storagePolicy: APNsChannelStoragePolicy, requestID: String)
        async -> Result<APNsChannelID, APNsChannelError>
    {
        let answer = await call("create", environment) {
            requests.createChannelRequest(storagePolicy: storagePolicy, requestID: requestID, authorization: $0)
        }
        return answer.flatMap { response in
            guard response.status == 201 else { return .failure(unexpected("create", environment, response)) }
            guard let id = response.header("apns-channel-id"), !id.isEmpty else {
                return .failure(APNsChannelError(operation: "create", environment: environment, status: response.status, reason: nil,
                                                 transportError: "201 without an apns-channel-id header", transportRetryable: false))
            }
            return .success(APNsChannelID(id))
        }
    }

    /// Reads a channel's configuration.
    public func readChannel(_ channel: APNsChannelID, environment: APNsServerEnvironment) async -> Result<APNsChannelInfo, APNsChannelError> {
        let answer = await call("read", environment) {
            requests.readChannelRequest(channel, requestID: UUID().uuidString.lowercased(), authorization: $0)
        }
        return answer.flatMap { response in
            struct Body: Decodable {
                var policy: Int
                var pushType: String
                enum CodingKeys: String, CodingKey {
                    case policy = "message-storage-policy"
                    case pushType = "push-type"
                }
            }
            guard response.status == 200, let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)),
                  let policy = APNsChannelStoragePolicy(rawValue: body.policy) else {
                return .failure(unexpected("read", environment, response))
            }
            return .success(APNsChannelInfo(storagePolicy: policy, pushType: body.pushType))
        }
    }

    /// Deletes a channel (irreversible; an id is never issued again).
    public func deleteChannel(_ channel: APNsChannelID, environment: APNsServerEnvironment) async -> Result<Void, APNsChannelError> {
        let answer = await call("delete", environment) {
            requests.deleteChannelRequest(channel, requestID: UUID().uuidString.lowercased(), authorization: $0)
        }
        return answer.flatMap { response in
            response.status == 204 || response.status == 200 ? .success(()) : .failure(unexpected("delete", environment, response))
        }
    }

    /// Every channel id of the app in `environment`.
    public func listChannels(environment: APNsServerEnvironment) async -> Result<[APNsChannelID], APNsChannelError> {
        let answer = await call("list", environment) {
            requests.listChannelsRequest(requestID: UUID().uuidString.lowercased(), authorization: $0)
        }
        return answer.flatMap { response in
            struct Body: Decodable { var channels: [String]? }
            guard response.status == 200 else { return .failure(unexpected("list", environment, response)) }
            if response.body.isEmpty { return .success([]) }
            guard let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)) else {
                return .failure(unexpected("list", environment, response))
            }
            return .success((body.channels ?? []).map(APNsChannelID.init))
        }
    }

    // MARK: - One call

    /// Sends one request; a 2xx comes back as success (the caller checks it further), anything else as the error.
    private func call(_ operation: String, _ environment: APNsServerEnvironment, _ build: (String) -> HTTP2Request)
        async -> Result<HTTP2Response, APNsChannelError>
    {
        let result: Result<HTTP2Response, APNsChannelError>
        switch await exchange.send(over: environment == .production ? production : sandbox, build) {
        case .response(let response, let reason, _):
            result = (200..<300).contains(response.status)
                ? .success(response)
                : .failure(APNsChannelError(operation: operation, environment: environment, status: response.status, reason: reason))
        case .transport(let error, _):
            result = .failure(APNsChannelError(operation: operation, environment: environment, status: nil, reason: nil,
                                               transportError: error.description, transportRetryable: error.isRetryable))
        case .noToken(let error):
            result = .failure(APNsChannelError(operation: operation, environment: environment, status: nil, reason: nil,
                                               transportError: error.description, transportRetryable: false))
        }
        metrics?.counter("apns_channel_requests_total", help: "Channel management requests by operation, outcome and APNs reason", labels: [
            "op": operation, "env": environment.rawValue,
            "outcome": (try? result.get()) != nil ? "ok" : "error",
            "reason": (try? result.get()) != nil ? "" : (result.failureReason ?? "none"),
        ]).increment()
        return result
    }

    private func unexpected(_ operation: String, _ environment: APNsServerEnvironment, _ response: HTTP2Response) -> APNsChannelError {
        APNsChannelError(operation: operation, environment: environment, status: response.status, reason: nil,
                         transportError: "unexpected answer (\(response.body.count) bytes)", transportRetryable: false)
    }
}

extension Result where Failure == APNsChannelError {
    fileprivate var failureReason: String? {
        if case .failure(let error) = self { return error.reason?.rawValue }
        return nil
    }
}
