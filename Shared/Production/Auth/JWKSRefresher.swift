import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Runtime

/// Keeps a `JWTVerifier`'s keys in step with a JWKS URL (Cognito's `/.well-known/jwks.json`), so a rotated
/// signing key is accepted without a restart:
///
/// - `run()` fetches every `interval`;
/// - `refreshForUnknownKey(_:)` fetches when a token names a key the verifier does not have — at most once per
///   `unknownKeyInterval` (forged `kid`s cannot make the api hammer Cognito), concurrent callers sharing one fetch;
/// - a failed fetch (unreachable, not 200, not a key set, no usable key) keeps the last good keys: users whose
///   tokens those keys sign are never locked out by an outage of the JWKS endpoint.
///
/// Metrics: `api_jwks_refreshes_total{trigger,result}` (trigger `start`, `periodic`, `unknown_kid`; result `ok`,
/// `failed`, `rate_limited`), `api_jwks_keys` (keys in use), `api_jwks_last_success_timestamp_seconds`.
/// A JWKS holds public keys only; its key ids are logged, never a token.
public final class JWKSRefresher: Sendable {
    /// Fetches the JWKS body from a URL (tests inject their own; the default is URLSession with a timeout).
    public typealias Fetch = @Sendable (URL) async throws -> Data

    /// Why a fetch failed.
    public enum FetchError: Error, CustomStringConvertible, Equatable {
        case status(url: String, status: Int)
        case notHTTP(url: String)

        public var description: String {
            switch self {
            case .status(let url, let status): "GET \(url) answered HTTP \(status)"
            case .notHTTP(let url): "GET \(url) got no HTTP answer"
            }
        }
    }

    public let url: URL
    public let interval: Duration
    public let unknownKeyInterval: Duration
    private let verifier: JWTVerifier
    private let fetch: Fetch
    private let clock: any WallClock
    private let logger: Logger
    private let metrics: MetricsRegistry

    private struct State {
        var lastUnknownKeyFetch: Date?
        var inFlight: Task<Bool, Never>?
    }
    private let state = LockedValue(State())

    public init(url: URL, verifier: JWTVerifier, interval: Duration = .seconds(3600), unknownKeyInterval: Duration = .seconds(60),
                fetch: Fetch? = nil, clock: any WallClock = SystemWallClock(), logger: Logger, metrics: MetricsRegistry) {
        self.url = url
        self.verifier = verifier
        self.interval = interval
        self.unknownKeyInterval = unknownKeyInterval
        self.fetch = fetch ?? Self.urlSessionFetch
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        metrics.gauge("api_jwks_keys", help: "Signing keys the api accepts").set(Double(verifier.keyIds.count))
    }

    /// The key set at `url`, fetched once (the api's start when it has no other keys).
    /// - Throws: `FetchError`, a transport error, or `AuthError.invalidKey` for a body that is not a key set.
    public static func fetchKeySet(_ url: URL, fetch: Fetch? = nil) async throws -> JSONWebKeySet {
        let data = try await (fetch ?? urlSessionFetch)(url)
        return try JSONWebKeySet(json: String(decoding: data, as: UTF8.self))
    }

    /// Fetches every `interval` until cancelled.
    public func run() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            _ = await refresh(trigger: "periodic")
        }
    }

    /// A token named `kid`, which the verifier does not know: fetches again unless a fetch for an unknown key
    /// happened less than `unknownKeyInterval` ago. True when the keys were replaced (verify the token again).
    public func refreshForUnknownKey(_ kid: String) async -> Bool {
        let now = clock.now()
        let allowed = state.withLock { state -> Bool in
            if let last = state.lastUnknownKeyFetch, now.timeIntervalSince(last) < unknownKeyInterval.seconds, state.inFlight == nil {
                return false
            }
            if state.inFlight == nil { state.lastUnknownKeyFetch = now }
            return true
        }
        guard allowed else {
            count(trigger: "unknown_kid", result: "rate_limited")
            return false
        }
        return await refresh(trigger: "unknown_kid")
    }

    /// Fetches now (or joins the fetch in flight); true when the keys were replaced.
    @discardableResult
    public func refresh(trigger: String) async -> Bool {
        let task = state.withLock { state -> Task<Bool, Never> in
            if let running = state.inFlight { return running }
            let task = Task { await self.fetchAndReplace(trigger: trigger) }
            state.inFlight = task
            return task
        }
        let replaced = await task.value
        state.withLock { state in if state.inFlight == task { state.inFlight = nil } }
        return replaced
    }

    private func fetchAndReplace(trigger: String) async -> Bool {
        do {
            let keySet = try await Self.fetchKeySet(url, fetch: fetch)
            try verifier.replaceKeys(keySet)
            count(trigger: trigger, result: "ok")
            metrics.gauge("api_jwks_keys", help: "Signing keys the api accepts").set(Double(verifier.keyIds.count))
            metrics.gauge("api_jwks_last_success_timestamp_seconds", help: "When the JWKS was last fetched and applied (Unix seconds)")
                .set(clock.now().timeIntervalSince1970)
            logger.info("JWKS refreshed", ["event": "jwks_refreshed", "trigger": trigger, "kids": verifier.keyIds.joined(separator: ",")])
            return true
        } catch {
            count(trigger: trigger, result: "failed")
            logger.warning("JWKS refresh failed; the last good keys stay in use", [
                "event": "jwks_refresh_failed", "trigger": trigger, "url": url.absoluteString, "reason": String(describing: error),
            ])
            return false
        }
    }

    private func count(trigger: String, result: String) {
        metrics.counter("api_jwks_refreshes_total", help: "JWKS fetches by trigger and result", labels: ["trigger": trigger, "result": result])
            .increment()
    }

    private static let urlSessionFetch: Fetch = { url in
        var request = URLRequest(url: url, timeoutInterval: 5)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.dataIgnoringCancellation(for: request)
        guard let http = response as? HTTPURLResponse else { throw FetchError.notHTTP(url: url.absoluteString) }
        guard http.statusCode == 200 else { throw FetchError.status(url: url.absoluteString, status: http.statusCode) }
        return data
    }
}
