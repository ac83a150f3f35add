/// The bell icon on a match (seeds: "Bell icon states").
public enum BellState: String, Sendable, Equatable, CaseIterable {
    /// Outline bell: tap to follow.
    case notFollowing
    /// Filled bell: followed, Live Activity fine.
    case following
    /// Filled bell with a warning badge: followed, but Live Activities are disabled or the start failed.
    case followingWithWarning
    /// Loading indicator: a follow or unfollow is in flight.
    case pending
}
