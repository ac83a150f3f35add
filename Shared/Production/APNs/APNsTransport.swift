/// What a sender needs from APNs: one push in, its final outcome out (after at most one extra attempt
/// with a fresh provider token), and a way to close the connections. `APNsClient` is the real one —
/// HTTP/2 over TLS to Apple or to mock-apns; tests can hand apns-sender an in-process fake that
/// answers each push as scripted.
public protocol APNsTransport: Sendable {
    /// Sends `push` and returns what APNs answered (never throws: a transport failure is an outcome).
    func send(_ push: APNsPush) async -> APNsOutcome
    /// Closes the connections; pushes sent afterwards fail as transport errors.
    func shutdown()
}

extension APNsClient: APNsTransport {}
