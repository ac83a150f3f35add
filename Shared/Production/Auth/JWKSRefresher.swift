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
/// Metrics: `api_jwks_refreshes_total{trigger,result}` (trigger `periodic`, `unknown_kid`; result `ok` (keys
/// replaced), `unchanged`, `failed`, `rate_limited`), `api_jwks_keys` (keys in use), `api_jwks_last_success_timestamp_seconds`.
/// A JWKS holds public keys only; its key ids are logged, never a token.
public final class JWKSRefresher: Sendable {
    /// Fetches the JWKS body from a URL (tests inject their own; the default is URLSession with a timeout).
    public typealias Fetch = @Sendable (URL) async throws -> Data

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
    /// - Throws: `HTTPFetchError`, a transport error, or `AuthError.invalidKey` for a body that is not a key set.
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
    /// started less than `unknownKeyInterval` ago (a fetch in flight is joined). True when the keys were replaced
    /// (verify the token again).
    public func refreshForUnknownKey(_ kid: String) async -> Bool {
        let now = clock.now()
        guard let task = task(trigger: "unknown_kid", admit: { state in
            if let last = state.lastUnknownKeyFetch, now.timeIntervalSince(last) < unknownKeyInterval.seconds { return false }
            state.lastUnknownKeyFetch = now
            return true
        }) else {
            count(trigger: "unknown_kid", result: "rate_limited")
            return false
        }
        return await finish(task)
    }

    /// Fetches now (or joins the fetch in flight); true when the keys were replaced.
    @discardableResult
    public func refresh(trigger: String) async -> Bool {
        await finish(task(trigger: trigger, admit: { _ in true })!)
    }

    /// The fetch in flight, else a new one when `admit` allows it (nil: refused) — decided under one lock.
    private func task(trigger: String, admit: (inout State) -> Bool) -> Task<Bool, Never>? {
        state.withLock { state in
            if let running = state.inFlight { return running }
            guard admit(&state) else { return nil }
            let task = Task { await self.fetchAndReplace(trigger: trigger) }
            state.inFlight = task
            return task
        }
    }

    private func finish(_ task: Task<Bool, Never>) async -> Bool {
        let replaced = await task.value
        state.withLock { state in if state.inFlight == task { state.inFlight = nil } }
        return replaced
    }

    private func fetchAndReplace(trigger: String) async -> Bool {
        do {
            let keySet = try await Self.fetchKeySet(url, fetch: fetch)
            let changed = try verifier.replaceKeys(keySet)
            count(trigger: trigger, result: changed ? "ok" : "unchanged")
            metrics.gauge("api_jwks_keys", help: "Signing keys the api accepts").set(Double(verifier.keyIds.count))
            metrics.gauge("api_jwks_last_success_timestamp_seconds", help: "When the JWKS was last fetched and applied (Unix seconds)")
                .set(clock.now().timeIntervalSince1970)
            if changed {
                logger.info("JWKS refreshed", ["event": "jwks_refreshed", "trigger": trigger, "kids": verifier.keyIds.joined(separator: ",")])
            }
            return changed
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

    private static let urlSessionFetch: Fetch = { url in try await URLSession.shared.fetch(url, timeout: 5, accept: "application/json") }
}
