/// When the fake feed first served a replay position of one fixture: its timeline, read by the match-day checker to
/// measure freshness from the moment a ball was on the feed to the moment APNs accepted a push showing it.
public struct ServedPosition: Sendable, Hashable, Codable {
    /// The SportMonks fixture id (Cricsheet id plus the feed's offset).
    public var fixture: Int
    /// Deliveries bowled in the position.
    public var deliveries: Int
    public var phase: ReplayPosition.Phase
    /// Unix milliseconds of the feed's clock when a response first carried the position.
    public var servedAt: Int64

    public init(fixture: Int, deliveries: Int, phase: ReplayPosition.Phase, servedAt: Int64) {
        self.fixture = fixture
        self.deliveries = deliveries
        self.phase = phase
        self.servedAt = servedAt
    }
}
