import Foundation

/// Settings of a fake SportMonks server: which tokens it accepts, how fast it replays and when
/// each Cricsheet match starts.
public struct FakeFeedConfiguration: Sendable, Equatable {
    /// The `api_token` query parameter every `/api/v2.0` request must carry.
    public var apiToken: String
    /// The token of the `/admin` API (header `X-Admin-Token: …` or `Authorization: Bearer …`).
    public var adminToken: String
    /// Replay speed: deliveries per second of wall time (every timeline step — a delivery, one
    /// step of an innings break — lasts `1 / speed` seconds).
    public var speed: Double
    /// Cricsheet match ids (before `idOffset`) that start live when the server starts.
    public var liveMatchIds: Set<Int>
    /// When set, every match not in `liveMatchIds` is scheduled `upcomingDays` days from today
    /// (UTC, at `startHourUTC`), the k-th such match `3·k` hours later than the first; when nil,
    /// matches are scheduled on their real Cricsheet dates (long finished).
    public var upcomingDays: Int?
    /// Hour (UTC) of a scheduled start.
    public var startHourUTC: Int
    /// Added to every Cricsheet match id to form the SportMonks fixture id (tests use unique offsets).
    public var idOffset: Int
    /// Steps an innings break (and lunch, tea, a rain interruption) lasts before play resumes; stumps last 3×.
    public var breakSteps: Int
    /// Steps a finished match stays in `/livescores` before it drops out.
    public var lingerSteps: Int
    /// Page size of `GET /fixtures` (SportMonks: 100).
    public var perPage: Int

    public init(
        apiToken: String = "dev-token", adminToken: String = "admin-token", speed: Double = 1,
        liveMatchIds: Set<Int> = [], upcomingDays: Int? = nil, startHourUTC: Int = 14, idOffset: Int = 0,
        breakSteps: Int = 5, lingerSteps: Int = 10, perPage: Int = 100
    ) {
        self.apiToken = apiToken
        self.adminToken = adminToken
        self.speed = speed
        self.liveMatchIds = liveMatchIds
        self.upcomingDays = upcomingDays
        self.startHourUTC = startHourUTC
        self.idOffset = idOffset
        self.breakSteps = breakSteps
        self.lingerSteps = lingerSteps
        self.perPage = perPage
    }
}
