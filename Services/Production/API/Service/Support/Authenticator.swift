import Auth
import Foundation
import HTTPServer
import Runtime

/// Turns the `Authorization` header into the caller, or a 401 / 403 / 429.
struct Authenticator: Sendable {
    let verifier: JWTVerifier
    /// Fetches the JWKS again when a token names an unknown key (rate-limited); nil: the keys are fixed.
    var refresher: JWKSRefresher? = nil
    let limiter: RateLimiter?
    let refusals: @Sendable (String) -> Void

    /// The verified caller. 401 `unauthorized` (with the reason) for a missing or bad token,
    /// 429 `rate_limited` past the per-user budget. A token naming a key the verifier does not have makes the
    /// refresher fetch the JWKS (at most once per its interval) and is verified again when the keys changed.
    func user(_ request: HTTPRequest) async throws(HTTPError) -> AuthenticatedUser {
        let user: AuthenticatedUser
        do {
            user = try await verified(request.header("authorization"))
        } catch {
            throw refused(error)
        }
        return try admitted(user)
    }

    /// `user(_:)` without waiting, for an immediate handler on a server thread: nil when the token names a key
    /// the verifier does not have yet and the refresher may fetch it (only `user(_:)` can wait for that).
    func immediateUser(_ request: HTTPRequest) throws(HTTPError) -> AuthenticatedUser? {
        let user: AuthenticatedUser
        do {
            user = try verifier.verify(authorizationHeader: request.header("authorization"))
        } catch AuthError.unknownKey(_) where refresher != nil {
            return nil
        } catch {
            throw refused(error)
        }
        return try admitted(user)
    }

    /// A refused token's 401 (counted by reason).
    private func refused(_ error: AuthError) -> HTTPError {
        refusals(error.code)
        return HTTPError(
            status: 401, code: "unauthorized", message: error.description,
            headers: [HTTPHeader(name: "WWW-Authenticate", value: "Bearer")])
    }

    /// A verified caller, once its subject is a valid id and it is within the rate limit.
    private func admitted(_ user: AuthenticatedUser) throws(HTTPError) -> AuthenticatedUser {
        guard InputRules.isValidId(user.userId) else {
            refusals("bad_subject")
            throw .unauthorized("the token's sub is not a valid user id")
        }
        if let limiter, !limiter.allow(user.userId) {
            throw HTTPError(
                status: 429, code: "rate_limited", message: "too many requests; slow down",
                headers: [HTTPHeader(name: "Retry-After", value: "1")])
        }
        return user
    }

    private func verified(_ header: String?) async throws(AuthError) -> AuthenticatedUser {
        do {
            return try verifier.verify(authorizationHeader: header)
        } catch .unknownKey(let kid) {
            guard let refresher, await refresher.refreshForUnknownKey(kid) else { throw .unknownKey(kid) }
            return try verifier.verify(authorizationHeader: header)
        }
    }

    /// The caller, who must be in the `admin` group (403 otherwise).
    func admin(_ request: HTTPRequest) async throws(HTTPError) -> AuthenticatedUser {
        let user = try await user(request)
        guard user.isAdmin else { throw .forbidden("admin group required") }
        return user
    }

    /// The name of the cookie the support page's sign-in sets (path `/admin/support`, `SameSite=Strict`): the admin's
    /// own access token, for a browser that cannot send an `Authorization` header on a link.
    static let supportCookie = "sightscreen_admin"

    /// An admin from the `Authorization` header or, without one, from the support page's cookie (the same token, the
    /// same checks): the support page's GETs, which change nothing.
    func adminFromHeaderOrCookie(_ request: HTTPRequest) async throws(HTTPError) -> AuthenticatedUser {
        guard request.header("authorization") == nil, let token = Self.cookie(Self.supportCookie, in: request.header("cookie")) else {
            return try await admin(request)
        }
        var withHeader = request
        withHeader.headers["authorization"] = "Bearer " + token
        return try await admin(withHeader)
    }

    /// A cookie's value from a `Cookie` header (`a=1; b=2`), nil when absent or empty.
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }
}
