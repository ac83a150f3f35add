import Synchronization
import Runtime

/// A bounded memory of tokens whose signature and claims already passed `JWTVerifier`, so that a
/// client repeating its token skips the RSA verification.
///
/// Keyed by the exact token string (a changed byte is a different key, so a forged variant is never
/// a hit). A hit still re-checks `exp` and `nbf` against the caller's clock and leeway; an entry whose
/// token expired is dropped on that hit. When the cache is full, expired entries are swept first and,
/// if it is still full, every entry is dropped (a burst of misses then repopulates it). Tokens are
/// never logged or exposed.
final class VerifiedTokenCache: Sendable {
    /// What a verified token established.
    struct Entry: Sendable {
        var user: AuthenticatedUser
        /// The token's `nbf` (Unix seconds), if it had one.
        var notBefore: Int64?
    }

    /// Most tokens kept.
    let capacity: Int
    private let entries = LockedValue<[String: Entry]>([:])

    /// - Parameter capacity: most tokens kept (≥ 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The cached entry of `token`, or nil (also for an entry that no longer passes the time checks,
    /// which the caller then verifies in full and gets the precise error).
    func lookup(_ token: String, now: Int64, leeway: Int64) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            if TokenWindow.hasExpired(exp: entry.user.expiresAt, now: now, leeway: leeway) {
                entries[token] = nil
                return nil
            }
            if let notBefore = entry.notBefore, TokenWindow.isNotYetValid(nbf: notBefore, now: now, leeway: leeway) {
                return nil
            }
            return entry
        }
    }

    /// Remembers a token that passed full verification at `now`.
    func store(_ token: String, _ entry: Entry, now: Int64, leeway: Int64) {
        entries.withLock { entries in
            if entries.count >= capacity, entries[token] == nil {
                entries = entries.filter { !TokenWindow.hasExpired(exp: $0.value.user.expiresAt, now: now, leeway: leeway) }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = entry
        }
    }

    /// Tokens currently kept.
    var count: Int { entries.withLock { $0.count } }

    /// Forgets every token (the key set changed).
    func removeAll() { entries.withLock { $0 = [:] } }
}
