/// A control reply that refuses the request: `{"error":"…"}`, the error as its only member.
/// Written by the control loop (`ControlProtocol.errorDocument`) and told apart from a
/// command's document by every client (`ControlProtocol.classify`). Golden file `reply-error`.
package struct ControlErrorDocument: Codable, Sendable, Equatable {
    package var error: String

    package init(error: String) { self.error = error }
}
