/// Restores the signed-in session at launch (the seeds' `AuthService`, Keychain-backed on iOS).
public protocol AuthSessionProvider: Sendable {
    /// The restored session, or nil when nobody is signed in.
    func restoreSession() async throws -> AuthSession?
}

/// A signed-in user.
public struct AuthSession: Sendable, Equatable {
    public var userId: String
    public init(userId: String) { self.userId = userId }
}

/// An `AuthSessionProvider` that always restores the same session (simulated devices, tests).
public struct FixedAuthSessionProvider: AuthSessionProvider {
    public let session: AuthSession?
    public init(_ session: AuthSession?) { self.session = session }
    public func restoreSession() async throws -> AuthSession? { session }
}
