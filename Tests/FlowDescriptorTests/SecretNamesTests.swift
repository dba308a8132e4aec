import FlowDescriptor
import Testing

/// Names that say a value is a secret, as the checker and the steps both read them.
@Suite struct SecretNamesTests {
    @Test(arguments: ["CLIENT_SECRET", "api-token", "Password", "X-API-KEY", "db_passwd", "userCredential"])
    func aNameThatSaysSecretIsOne(_ name: String) {
        #expect(SecretNames.looksSecret(name))
    }

    @Test(arguments: ["TOKEN_URL", "SECRET_NAME", "password-file", "Authorization-Header", "username", "HOME"])
    func aNameAboutASecretOrNoSecretIsNot(_ name: String) {
        #expect(!SecretNames.looksSecret(name))
    }
}
