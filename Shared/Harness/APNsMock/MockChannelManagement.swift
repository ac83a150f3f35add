import APNs
import Foundation
import HTTP2
import HTTP2Server
import Runtime

/// The channel management API of one environment, as Apple serves it on
/// `api-manage-broadcast(.sandbox).push.apple.com` (its own listener per environment):
/// - `POST /1/apps/<bundle>/channels` `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}` → 201,
///   headers `apns-request-id` and `apns-channel-id`, empty body;
/// - `GET` / `DELETE /1/apps/<bundle>/channels` with the `apns-channel-id` header → 200
///   `{"message-storage-policy": n, "push-type": "LiveActivity"}` / 204;
/// - `GET /1/apps/<bundle>/all-channels` → 200 `{"channels": [ids]}`.
/// Checked in this order: path (BadPath), method (MethodNotAllowed), provider token, bundle (TopicDisallowed
/// for a push-type suffix, TopicMismatch for another app), `apns-request-id` (BadMessageId), the capability
/// (FeatureNotEnabled), then the operation's own checks. Every answer carries `apns-request-id`.
struct MockChannelManagement: Sendable {
    let environment: APNsServerEnvironment
    let bundleID: String
    let channels: MockChannelStore
    let state: MockAPNsState
    let validator: MockAPNsValidator
    let clock: any WallClock

    func answer(_ request: HTTP2ServerRequest) -> HTTP2ServerResponse {
        let requestID = request.header("apns-request-id") ?? UUID().uuidString.lowercased()
        func reject(_ reason: APNsReason) -> HTTP2ServerResponse {
            state.noteChannelRejected(reason)
            return MockAPNsServer.rejection(reason, apnsID: nil, requestID: requestID, delay: nil)
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        // "", "1", "apps", bundle, "channels" | "all-channels"
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty,
              parts[4] == "channels" || parts[4] == "all-channels" else { return reject(.badPath) }
        let listing = parts[4] == "all-channels"
        let allowed: Set<String> = listing ? ["GET"] : ["POST", "GET", "DELETE"]
        guard allowed.contains(request.method) else { return reject(.methodNotAllowed) }
        let now = clock.now().timeIntervalSince1970
        if let reason = validator.checkAuthorization(request.header("authorization"), now: Int64(now)) { return reject(reason) }
        let bundle = String(parts[3])
        if bundle.contains(".push-type.") { return reject(.topicDisallowed) }
        guard bundle == bundleID else { return reject(.topicMismatch) }
        if let given = request.header("apns-request-id"), !APNsID.isValid(given) { return reject(.badMessageId) }
        guard !state.faults.broadcastDisabled else { return reject(.featureNotEnabled) }
        var headers = [HTTP2Header("apns-request-id", requestID)]
        if listing {
            let body = Self.json(["channels": channels.list(environment: environment)])
            return HTTP2ServerResponse(status: 200, headers: headers + [HTTP2Header("content-type", "application/json")], body: body)
        }
        if request.method == "POST" {
            guard !request.body.isEmpty else { return reject(.payloadEmpty) }
            let body: CreateBody
            do {
                body = try JSONDecoder().decode(CreateBody.self, from: Data(request.body))
            } catch let problem as CreateBody.Problem {
                return reject(problem.reason)
            } catch {
                return reject(.badRequestPayload)
            }
            switch channels.create(environment: environment, policy: body.policy) {
            case .refused(let reason):
                return reject(reason)
            case .created(let id):
                headers.append(HTTP2Header("apns-channel-id", id))
                return HTTP2ServerResponse(status: 201, headers: headers)
            }
        }
        guard let id = request.header("apns-channel-id"), !id.isEmpty else { return reject(.missingChannelId) }
        guard APNsChannelID.isWellFormed(id) else { return reject(.badChannelId) }
        guard let policy = channels.policy(of: id, environment: environment) else { return reject(.channelNotRegistered) }
        if request.method == "DELETE" {
            channels.delete(id, environment: environment)
            return HTTP2ServerResponse(status: 204, headers: headers)
        }
        let body = Array(#"{"message-storage-policy":\#(policy.rawValue),"push-type":"LiveActivity"}"#.utf8)
        return HTTP2ServerResponse(status: 200, headers: headers + [HTTP2Header("content-type", "application/json")], body: body)
    }

    /// The create body, with Apple's reasons for what is wrong in it.
    private struct CreateBody: Decodable {
        struct Problem: Error { let reason: APNsReason }
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        let policy: APNsChannelStoragePolicy

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: Key.self) else { throw Problem(reason: .badRequestPayload) }
            let known: Set<String> = ["message-storage-policy", "push-type"]
            guard container.allKeys.allSatisfy({ known.contains($0.stringValue) }) else { throw Problem(reason: .badRequestParams) }
            guard let raw = try? container.decode(Int.self, forKey: Key(stringValue: "message-storage-policy")),
                  let policy = APNsChannelStoragePolicy(rawValue: raw) else { throw Problem(reason: .badRequestParams) }
            guard container.contains(Key(stringValue: "push-type")) else { throw Problem(reason: .missingPushType) }
            guard (try? container.decode(String.self, forKey: Key(stringValue: "push-type"))) == "LiveActivity" else {
                throw Problem(reason: .invalidPushType)
            }
            self.policy = policy
        }
    }

    static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { Array($0) } ?? Array("null".utf8)
    }
}
