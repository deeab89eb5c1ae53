plugins {
    alias(libs.plugins.kotlin.jvm)
    application
}

dependencyLocking {
    lockAllConfigurations()
}

dependencies {
    implementation(libs.okhttp)
    implementation(libs.okhttp.logging)
    implementation(libs.coroutines.core)
    testImplementation(libs.junit.jupiter)
}

application {
    mainClass.set("com.acme.app.MainKt")
}
