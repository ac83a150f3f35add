import Auth
import Contracts
import PushComposition
import Foundation
import LiveActivities
import Operations
import Runtime
import ServiceKit
import Matches

/// The api's settings, read from the environment at start (invalid values stop it with exit code 78).
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `AUTH_JWKS` | – | the JWKS JSON inline (wins over the path) |
/// | `AUTH_JWKS_PATH` | `$STACK_DIR/dev-keys/jwks.json` | a JWKS file (Cognito's `/.well-known/jwks.json` saved) |
/// | `AUTH_JWKS_URL` | – | Cognito's `https://cognito-idp.<region>.amazonaws.com/<pool>/.well-known/jwks.json`: fetched at start (unless `AUTH_JWKS`/`AUTH_JWKS_PATH` give the first keys), refreshed every `AUTH_JWKS_REFRESH_MS` (1 h) and on an unknown `kid` (at most once per `AUTH_JWKS_UNKNOWN_KID_MS`, 60 s); a failed fetch keeps the last good keys |
/// | `AUTH_ISSUER` | `https://sightscreen.local/dev-user-pool` | exact `iss` |
/// | `AUTH_CLIENT_ID` | `sightscreen-ios-dev` | `client_id` (access) / `aud` (id tokens) |
/// | `AUTH_TOKEN_USES` | `access` | accepted `token_use` values, comma-separated (`access,id`) |
/// | `AUTH_LEEWAY_SECONDS` | 30 | clock skew allowed on exp/nbf |
/// | `AUTH_TOKEN_CACHE_SIZE` | 10000 | verified tokens remembered (skips the RSA check on a repeated token; exp/nbf still checked; 0 = off) |
/// | `PUSH_SHARDS` | 64 (PushSharding.defaultShards) | shard count of the push.jobs key "matchId:shard" |
/// | `PUSH_JOBS_TOPIC` | `push.jobs` | where jobs go (override only to isolate benchmarks) |
/// | `API_DB_POOL_SIZE` | 4 × cores (≥ 8) | PostgreSQL connections (a follow is one statement; more connections than this only add context switches) |
/// | `API_KAFKA_LINGER_MS` | 0 | producer linger (a batch's start jobs are produced together anyway) |
/// | `API_FOLLOW_BATCH_SIZE` | 64 | most follows per follow statement (group commit; 1 = one statement per follow) |
/// | `API_FOLLOW_BATCH_CONCURRENCY` | 2 | follow statements running at once (more requests queue for the next batch) |
/// | `API_FOLLOW_BATCH_WAIT_US` | 1000 | how long a batch that starts while another runs waits for more follows (bigger batches under load; an idle follow never waits; 0: never) |
/// | `API_START_RESEND_SECONDS` | 60 | a repeated follow re-sends push-to-start to a PENDING row older than this |
/// | `API_MAX_START_ATTEMPTS` | 5 | …at most this many starts per row through repeated follows |
/// | `API_MAX_MATCH_HOURS` | 120 | assumed longest match: follow expiry = start + this + 48 h |
/// | `API_RATE_LIMIT_PER_MINUTE` | 1200 | requests per user per minute before 429 (0 = off) |
/// | `LIVE_RETRY_KEY_MOMENT_MS` / `LIVE_RETRY_LIVE_MS` / `LIVE_RETRY_IDLE_MS` | 5000 / 15000 / 60000 | `retryAfterMs` of GET /matches/live |
/// | `LIVE_KEY_MOMENT_SECONDS` | 120 | a key event this recent makes a key moment |
/// | `LIVE_CACHE_MS` | 1000 | GET /matches/live answer is shared for this long, rebuilt by one request at a time while the others get the previous one (at most twice this old); 0 = off |
/// | `FAKE_SPORTMONKS_ADMIN_URL` | – | base URL of fake-sportmonks (replay controls answer 503 without it) |
/// | `FAKE_SPORTMONKS_ADMIN_TOKEN` | `admin-token` | its `X-Admin-Token` |
/// plus `HTTP_PORT` (8080), `HTTP_HOST`, `LOG_LEVEL`, `SHUTDOWN_GRACE_MS`, `KAFKA_BROKERS`, `DATABASE_URL` (ServiceKit).
public struct APIConfiguration: Sendable {
    public var infrastructure: InfrastructureOptions
    /// The first keys (empty when they come from `jwksURL` at start).
    public var keySet: JSONWebKeySet
    /// `AUTH_JWKS_URL`: where rotated keys are fetched (nil: the key set is fixed).
    public var jwksURL: URL?
    public var jwksRefreshInterval: Duration = .seconds(3600)
    public var jwksUnknownKeyInterval: Duration = .seconds(60)
    public var verifier: JWTVerifierConfiguration
    public var tokenCacheSize: Int = 10_000
    public var pushShards: Int = PushSharding.defaultShards
    /// Expirations of the api's pushes (starts, ends, background ends): the policy every service reads the same way.
    public var pushPolicy = PushPolicy()
    public var pushJobsTopic: String = "push.jobs"
    public var databasePoolSize: Int = APIConfiguration.defaultPoolSize
    public var kafkaLinger: Duration = .zero
    var policy = FollowPolicy()
    var followBatch = GroupCommitQueue<FollowFlow.FollowKey, FollowBatcher.Outcome>.Limits(maxWait: .milliseconds(1))
    public var rateLimitPerMinute: Int = 1200
    var liveRetry = LiveRetryPolicy()
    public var liveCacheSeconds: TimeInterval = 1
    public var replayAdminURL: String?
    public var replayAdminToken: String = "admin-token"

    /// 4 connections per core, at least 8: on the 2-core machine 8 connections served more follows
    /// with a lower p99 than 24 (fewer PostgreSQL processes and queue threads to switch between).
    static var defaultPoolSize: Int { max(8, 4 * ProcessInfo.processInfo.activeProcessorCount) }

    public init(infrastructure: InfrastructureOptions, keySet: JSONWebKeySet, verifier: JWTVerifierConfiguration) {
        self.infrastructure = infrastructure
        self.keySet = keySet
        self.verifier = verifier
    }

    public init(_ environment: EnvironmentReader) throws {
        let keySet: JSONWebKeySet
        let jwksURL = try Self.readJWKSURL(environment)
        if jwksURL != nil, (environment.raw("AUTH_JWKS") ?? "").isEmpty, (environment.raw("AUTH_JWKS_PATH") ?? "").isEmpty {
            keySet = JSONWebKeySet(keys: [])  // fetched at start
        } else if let inline = environment.raw("AUTH_JWKS"), !inline.isEmpty {
            do { keySet = try JSONWebKeySet(json: inline) } catch {
                throw ConfigurationError.invalid(variable: "AUTH_JWKS", value: "(inline JWKS)", expected: "JWKS JSON {\"keys\": [...]}")
            }
        } else {
            let stack = environment.string("STACK_DIR", default: ".stack")
            let path = environment.string("AUTH_JWKS_PATH", default: stack + "/dev-keys/jwks.json")
            do { keySet = try JSONWebKeySet(contentsOfFile: path) } catch {
                throw ConfigurationError.invalid(
                    variable: "AUTH_JWKS_PATH", value: path,
                    expected: "a readable JWKS file (run `sightscreen dev-keys` for a dev key pair, or set AUTH_JWKS)")
            }
        }
        let uses = Set(environment.string("AUTH_TOKEN_USES", default: "access").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        })
        guard !uses.isEmpty, uses.isSubset(of: ["access", "id"]) else {
            throw ConfigurationError.invalid(variable: "AUTH_TOKEN_USES", value: uses.sorted().joined(separator: ","), expected: "access, id or access,id")
        }
        let verifier = JWTVerifierConfiguration(
            issuer: environment.string("AUTH_ISSUER", default: JWTVerifierConfiguration.defaultIssuer),
            clientId: environment.string("AUTH_CLIENT_ID", default: JWTVerifierConfiguration.defaultClientId), acceptedTokenUses: uses,
            leewaySeconds: Int64(try environment.int("AUTH_LEEWAY_SECONDS", default: 30, in: 0...600)))
        self.init(infrastructure: try InfrastructureOptions(environment), keySet: keySet, verifier: verifier)
        tokenCacheSize = try environment.int("AUTH_TOKEN_CACHE_SIZE", default: 10_000, in: 0...1_000_000)
        self.jwksURL = jwksURL
        jwksRefreshInterval = try environment.milliseconds("AUTH_JWKS_REFRESH_MS", default: jwksRefreshInterval, in: 1000...86_400_000)
        jwksUnknownKeyInterval = try environment.milliseconds("AUTH_JWKS_UNKNOWN_KID_MS", default: jwksUnknownKeyInterval, in: 0...3_600_000)
        pushShards = try environment.int("PUSH_SHARDS", default: PushSharding.defaultShards, in: 1...4096)
        pushPolicy = try PushPolicy(environment)
        pushJobsTopic = environment.string("PUSH_JOBS_TOPIC", default: "push.jobs")
        databasePoolSize = try environment.int("API_DB_POOL_SIZE", default: Self.defaultPoolSize, in: 1...256)
        kafkaLinger = .milliseconds(try environment.int("API_KAFKA_LINGER_MS", default: 0, in: 0...1000))
        followBatch.maxBatch = try environment.int("API_FOLLOW_BATCH_SIZE", default: 64, in: 1...1000)
        followBatch.concurrency = try environment.int("API_FOLLOW_BATCH_CONCURRENCY", default: 2, in: 1...64)
        followBatch.maxWait = .microseconds(try environment.int("API_FOLLOW_BATCH_WAIT_US", default: 1000, in: 0...100_000))
        policy.startResendAfter = TimeInterval(try environment.int("API_START_RESEND_SECONDS", default: 60, in: 0...86_400))
        policy.maximumStartAttempts = try environment.int("API_MAX_START_ATTEMPTS", default: 5, in: 1...100)
        policy.maximumMatchDuration = TimeInterval(try environment.int("API_MAX_MATCH_HOURS", default: 120, in: 1...720) * 3600)
        rateLimitPerMinute = try environment.int("API_RATE_LIMIT_PER_MINUTE", default: 1200, in: 0...10_000_000)
        liveRetry.keyMomentMs = try environment.int("LIVE_RETRY_KEY_MOMENT_MS", default: 5000, in: 500...600_000)
        liveRetry.liveMs = try environment.int("LIVE_RETRY_LIVE_MS", default: 15000, in: 500...600_000)
        liveRetry.idleMs = try environment.int("LIVE_RETRY_IDLE_MS", default: 60000, in: 500...3_600_000)
        liveRetry.keyMomentWindow = TimeInterval(try environment.int("LIVE_KEY_MOMENT_SECONDS", default: 120, in: 1...3600))
        liveCacheSeconds = Double(try environment.int("LIVE_CACHE_MS", default: 1000, in: 0...60_000)) / 1000
        if let url = environment.raw("FAKE_SPORTMONKS_ADMIN_URL"), !url.isEmpty {
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), URL(string: url) != nil else {
                throw ConfigurationError.invalid(variable: "FAKE_SPORTMONKS_ADMIN_URL", value: url, expected: "an http(s) URL")
            }
            replayAdminURL = url
        }
        replayAdminToken = environment.string("FAKE_SPORTMONKS_ADMIN_TOKEN", default: "admin-token")
    }
}

/// `retryAfterMs` of GET /matches/live: short in key moments, long when nothing is live.
struct LiveRetryPolicy: Sendable {
    var keyMomentMs = 5000
    var liveMs = 15000
    var idleMs = 60000
    /// A key event (or an alert cooldown still running) within this window makes a key moment.
    var keyMomentWindow: TimeInterval = 120

    func retryAfterMs(_ live: [MatchStore.LiveMatch], now: Date) -> Int {
        guard !live.isEmpty else { return idleMs }
        let nowMs = Int64(now.timeIntervalSince1970 * 1000)
        let keyMoment = live.contains { match in
            if let at = match.lastKeyEventAt, now.timeIntervalSince(at) <= keyMomentWindow { return true }
            return match.cooldownUntil.contains { $0 > nowMs }
        }
        return keyMoment ? keyMomentMs : liveMs
    }
}

extension APIConfiguration {
    /// `AUTH_JWKS_URL`, an http(s) URL with a host, or nil when unset.
    static func readJWKSURL(_ environment: EnvironmentReader) throws -> URL? {
        guard let text = environment.raw("AUTH_JWKS_URL"), !text.isEmpty else { return nil }
        guard let url = URL(string: text), ["https", "http"].contains(url.scheme ?? ""), url.host != nil else {
            throw ConfigurationError.invalid(variable: "AUTH_JWKS_URL", value: text, expected: "an https URL such as Cognito's …/.well-known/jwks.json")
        }
        return url
    }
}
