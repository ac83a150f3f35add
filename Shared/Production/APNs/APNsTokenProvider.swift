import Foundation
import Runtime
import Synchronization

/// One provider token shared by every request and connection: minted on first use, reused, and
/// refreshed once it is `refreshInterval` old (20–60 minutes, default 50). On ExpiredProviderToken
/// it is re-minted, but not within 20 minutes of the last mint unless forced (APNs answers 429
/// TooManyProviderTokenUpdates to faster churn). The JWT is never logged.
public final class APNsTokenProvider: Sendable {
    /// APNs' limits on token age.
    public static let minimumRefresh: Duration = .seconds(20 * 60)
    public static let maximumRefresh: Duration = .seconds(60 * 60)

    public let teamID: String
    public let keyID: String
    public let refreshInterval: Duration
    private let key: APNsSigningKey
    private let clock: any WallClock
    private struct Current {
        var authorization: String
        var token: String
        var issuedAt: Int64
    }
    private let state = LockedValue<(current: Current?, minted: Int)>((nil, 0))

    /// - Throws: `APNsError.invalidConfiguration` when `refreshInterval` is outside 20…60 minutes or
    ///   the key cannot sign.
    public init(
        teamID: String, keyID: String, key: APNsSigningKey, clock: any WallClock = SystemWallClock(),
        refreshInterval: Duration = .seconds(50 * 60)
    ) throws(APNsError) {
        guard refreshInterval >= Self.minimumRefresh, refreshInterval <= Self.maximumRefresh else {
            throw .invalidConfiguration("token refresh must be between 20 and 60 minutes")
        }
        guard key.canSign else { throw .invalidConfiguration("the APNs key has no private half") }
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
        self.clock = clock
        self.refreshInterval = refreshInterval
    }

    /// The current token, minting a new one when there is none or it reached `refreshInterval`.
    public func token() throws(APNsError) -> String { try current().token }

    /// `bearer <token>` for the `authorization` header.
    public func authorization() throws(APNsError) -> String { try current().authorization }

    /// `iat` of the current token (Unix seconds), if one was minted.
    public var issuedAt: Int64? { state.withLock { $0.current?.issuedAt } }

    /// How many tokens were minted so far.
    public var mintedCount: Int { state.withLock { $0.minted } }

    /// APNs rejected `authorization` as ExpiredProviderToken. Mints a new token if that one is still
    /// current and at least 20 minutes old (or `force`). Returns true when a usable newer token exists.
    @discardableResult
    public func tokenRejected(authorization rejected: String, force: Bool = false) throws(APNsError) -> Bool {
        let now = Int64(clock.now().timeIntervalSince1970)
        let outcome: Result<Bool, APNsError> = state.withLock { state in
            guard let current = state.current, current.authorization == rejected else { return .success(true) }
            let age = now - current.issuedAt
            guard force || age >= Int64(Self.minimumRefresh.components.seconds) else { return .success(false) }
            do throws(APNsError) {
                state.current = try mint(at: now)
                state.minted += 1
                return .success(true)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private func current() throws(APNsError) -> Current {
        let now = Int64(clock.now().timeIntervalSince1970)
        let outcome: Result<Current, APNsError> = state.withLock { state in
            if let current = state.current, now - current.issuedAt < Int64(refreshInterval.components.seconds) {
                return .success(current)
            }
            do throws(APNsError) {
                let fresh = try mint(at: now)
                state.current = fresh
                state.minted += 1
                return .success(fresh)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private func mint(at now: Int64) throws(APNsError) -> Current {
        let token = try APNsJWT.make(teamID: teamID, keyID: keyID, issuedAt: now, key: key)
        return Current(authorization: "bearer " + token, token: token, issuedAt: now)
    }
}
