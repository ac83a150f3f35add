import CricsheetReplay

/// The positions the feed served, each fixture's entry written when a response first carries a position other than the
/// one it served last (a seek back serves an older one again; the checker takes the first time a delivery was served).
/// Bounded: past `limit` entries the oldest go.
struct ServedTimeline: Sendable {
    private(set) var entries: [ServedPosition] = []
    private var lastIndex: [Int: Int] = [:]
    let limit: Int

    init(limit: Int = 200_000) { self.limit = limit }

    /// Notes that `fixture`'s timeline index `index` (showing `position`) was served at `servedAt` (Unix ms).
    mutating func note(fixture: Int, index: Int, position: ReplayPosition, servedAt: Int64) {
        guard lastIndex[fixture] != index else { return }
        lastIndex[fixture] = index
        if entries.count >= limit { entries.removeFirst(entries.count - limit + 1) }
        entries.append(ServedPosition(fixture: fixture, deliveries: position.deliveries, phase: position.phase, servedAt: servedAt))
    }
}
