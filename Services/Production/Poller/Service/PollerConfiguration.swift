import Contracts
import Foundation
import Runtime
import ServiceKit

/// Everything the poller reads from the environment, read in one place at start (`init(_:)`).
public struct PollerConfiguration: Sendable {
    /// `SPORTMONKS_BASE_URL`: API base, https in production, the fake's http URL in dev/tests.
    public var baseURL: String = "http://127.0.0.1:8090/api/v2.0"
    /// `SPORTMONKS_API_TOKEN`: sent as `api_token`.
    public var apiToken: String = "dev-token"
    /// `SPORTMONKS_INCLUDE`: includes of the live poll and the final fetch.
    public var include: String = PollerConfiguration.defaultInclude
    /// `SPORTMONKS_SCHEDULE_INCLUDE`: includes of the schedule sync (enough for a card).
    public var scheduleInclude: String = "localteam,visitorteam,league,venue,runs"
    /// `POLL_INTERVAL_MS`: pause between two successful livescores polls.
    public var pollInterval: Duration = .seconds(5)
    /// `SPORTMONKS_TIMEOUT_MS`: per-request timeout.
    public var requestTimeout: Duration = .seconds(10)
    /// `BACKOFF_INITIAL_MS` / `BACKOFF_MAX_MS`: exponential backoff after failed polls (with jitter).
    public var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
    /// `SCHEDULE_WINDOW_DAYS`: the schedule sync covers yesterday … today + this many days.
    public var scheduleWindowDays: Int = 7
    /// `SCHEDULE_SYNC_INTERVAL_MS`: how often the schedule is synced.
    public var scheduleInterval: Duration = .seconds(300)
    /// `LEADER_RETRY_MS`: how often a standby replica retries the advisory lock.
    public var leaderRetry: Duration = .seconds(3)
    /// `POLLER_LOCK_NAME`: name of the advisory lock (hashed to its key).
    public var lockName: String = "sightscreen.poller"
    /// Where snapshots go (tests use their own topic).
    public var fixturesTopic = FixtureSnapshot.topic.name
    /// `KAFKA_BROKERS`, `DATABASE_URL`, Kafka session timings.
    public var infrastructure = InfrastructureOptions()

    static let defaultInclude =
        "localteam,visitorteam,league,venue,tosswon,lineup,runs,scoreboards,batting,bowling,balls.score,balls.batsman,balls.bowler,balls.team"

    public init() {}

    /// Reads and validates every variable; the error names the variable.
    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        baseURL = environment.string("SPORTMONKS_BASE_URL", default: baseURL)
        guard let url = URL(string: baseURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw .invalid(variable: "SPORTMONKS_BASE_URL", value: baseURL, expected: "an http(s) URL")
        }
        apiToken = environment.string("SPORTMONKS_API_TOKEN", default: apiToken)
        include = environment.string("SPORTMONKS_INCLUDE", default: include)
        scheduleInclude = environment.string("SPORTMONKS_SCHEDULE_INCLUDE", default: scheduleInclude)
        pollInterval = try environment.milliseconds("POLL_INTERVAL_MS", default: pollInterval, in: 100...3_600_000)
        requestTimeout = try environment.milliseconds("SPORTMONKS_TIMEOUT_MS", default: requestTimeout, in: 100...300_000)
        backoff.initial = try environment.milliseconds("BACKOFF_INITIAL_MS", default: backoff.initial, in: 10...3_600_000)
        backoff.maximum = try environment.milliseconds("BACKOFF_MAX_MS", default: backoff.maximum, in: 10...3_600_000)
        scheduleWindowDays = try environment.int("SCHEDULE_WINDOW_DAYS", default: scheduleWindowDays, in: 0...60)
        scheduleInterval = try environment.milliseconds("SCHEDULE_SYNC_INTERVAL_MS", default: scheduleInterval, in: 1000...86_400_000)
        leaderRetry = try environment.milliseconds("LEADER_RETRY_MS", default: leaderRetry, in: 100...600_000)
        lockName = environment.string("POLLER_LOCK_NAME", default: lockName)
        infrastructure = try InfrastructureOptions(environment)
    }
}
