import HTTP2
import Runtime

/// One request signed with the provider token, sent once more with a new token when APNs answers 403
/// ExpiredProviderToken: the broadcast and channel-management calls (a device push job has its own batch
/// path in `APNsClient`, with the same rule).
struct APNsExchange: Sendable {
    /// What came back.
    enum Answer: Sendable {
        /// A response (any status) with its parsed error reason, after `attempts` requests.
        case response(HTTP2Response, reason: APNsReason?, attempts: Int)
        /// No response: the transport failed (`isRetryable` tells whether sending again may help).
        case transport(HTTP2Error, attempts: Int)
        /// No provider token could be made (a bad key): nothing was sent.
        case noToken(APNsError)
    }

    let tokens: APNsTokenProvider
    let logger: Logger

    /// Sends `build(authorization)` over `http`.
    func send(over http: HTTP2Client, _ build: (String) -> HTTP2Request) async -> Answer {
        var regenerated = false
        var attempts = 0
        while true {
            attempts += 1
            let authorization: String
            do {
                authorization = try tokens.authorization()
            } catch {
                return .noToken(error)
            }
            let response: HTTP2Response
            do {
                response = try await http.send(build(authorization))
            } catch let error as HTTP2Error {
                return .transport(error, attempts: attempts)
            } catch {
                return .transport(.protocolError(code: 0, message: "\(error)"), attempts: attempts)
            }
            let (reason, _) = APNsClient.parseError(response)
            if reason == .expiredProviderToken, !regenerated {
                regenerated = true
                let fresh = (try? tokens.tokenRejected(authorization: authorization)) ?? false
                logger.warning("APNs rejected the provider token as expired", ["newTokenMinted": String(fresh)])
                if fresh { continue }
            }
            return .response(response, reason: reason, attempts: attempts)
        }
    }
}
