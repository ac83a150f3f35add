import Foundation

/// Chooses how device-sim mints user JWTs.
enum TokenMinting {
    /// A pre-minted token from DEVICE_SIM_TOKEN (every user shares it), else the dev keys.
    static func make(_ configuration: SimulatorConfiguration, environment: [String: String]) throws -> any UserTokenMinter {
        if let token = environment["DEVICE_SIM_TOKEN"], !token.isEmpty { return StaticTokenMinter(value: token) }
        throw TokenMintingError(reason: "no JWT source: set DEVICE_SIM_TOKEN (dev-keys signing lands with the Auth module)")
    }
}

/// No way to mint JWTs for the simulated users.
struct TokenMintingError: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
