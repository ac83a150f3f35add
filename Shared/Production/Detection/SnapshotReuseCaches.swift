import Cricket
import FastJSON
import Synchronization
import Runtime

/// One `FastJSONReuseCache` per match, so each new snapshot of a match decodes only the batting, bowling,
/// lineup (and embedded player) and scoreboard rows that are new or changed since the last one. Balls are not
/// cached: since issue 15 each travels once, in the snapshot that brings it.
///
/// Keeps the caches of the `capacity` most recently seen matches; the least recently used is dropped first.
/// Sharing it is safe (a lock guards the table; each cache locks itself while a decode uses it).
public final class SnapshotReuseCaches: Sendable {
    /// How many matches keep a cache.
    public let capacity: Int
    private let table: LockedValue<Table>

    private struct Table {
        var caches: [String: FastJSONReuseCache] = [:]
        var lastUse: [String: UInt64] = [:]
        var clock: UInt64 = 0
    }

    public init(capacity: Int = 128) {
        self.capacity = max(1, capacity)
        table = LockedValue(Table())
    }

    /// The cache of `matchKey` (made on first use).
    public func cache(for matchKey: String) -> FastJSONReuseCache {
        table.withLock { table in
            table.clock += 1
            table.lastUse[matchKey] = table.clock
            if let cache = table.caches[matchKey] { return cache }
            if table.caches.count >= capacity,
               let oldest = table.lastUse.filter({ $0.key != matchKey }).min(by: { $0.value < $1.value })?.key {
                table.caches[oldest] = nil
                table.lastUse[oldest] = nil
            }
            let cache = FastJSONReuseCache(reusing: [SportMonksBatting.self, SportMonksBowling.self,
                                                      SportMonksPlayer.self, SportMonksScoreboard.self])
            table.caches[matchKey] = cache
            return cache
        }
    }

    /// Drops the cache of `matchKey` (a match that ended).
    public func forget(_ matchKey: String) {
        table.withLock { table in
            table.caches[matchKey] = nil
            table.lastUse[matchKey] = nil
        }
    }

    /// Matches that currently keep a cache.
    public var count: Int { table.withLock { $0.caches.count } }
}
