/// One poll of one SportMonks fixture, published only when it changed. Topic `sportmonks.fixtures`, key matchId.
public struct FixtureSnapshot: VersionedMessage, Equatable {
    public static let currentSchema = 1
    public static let topic = Topic.fixtures

    public var schema: Int
    /// SportMonks fixture id, as text.
    public var matchId: String
    /// When the poller received it, Unix epoch milliseconds.
    public var polledAt: Int64
    /// The fixture object exactly as SportMonks served it (the `data` member of the reply).
    public var fixture: JSONValue

    public init(matchId: String, polledAt: Int64, fixture: JSONValue) {
        self.schema = Self.currentSchema
        self.matchId = matchId
        self.polledAt = polledAt
        self.fixture = fixture
    }
}
