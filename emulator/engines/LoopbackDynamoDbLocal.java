// Runs DynamoDB Local listening on 127.0.0.1 only. Its jar takes no host option (`-help` lists
// -port, -inMemory, -sharedDb, -dbPath, -cors, -delayTransientStatuses, -disableTelemetry,
// -optimizeDbBeforeStartup): its Jetty server is built with a port alone and so listens on every
// interface, which would let anyone on the network read and write the local tables around the
// contract layer's gateway. This builds the server as the jar's own main does, binds its
// connectors to the loopback address, then starts it.
//
// Java runs it from this source file (`java -cp DynamoDBLocal.jar LoopbackDynamoDbLocal.java
// <DynamoDB Local's options>`), which needs the jdk.compiler module: a JDK has it, and so do
// Debian's and Ubuntu's openjdk-17-jre-headless; a jlinked JRE image may not (dynamodb-local.ts
// says so when it is missing).
//
// The jar's main also sets up DynamoDB Local's telemetry, which reports each start to AWS; this
// does not, and dynamodb-local.ts passes -disableTelemetry besides.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
  private static final String LOOPBACK = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    for (Connector connector : jettyServerOf(proxy).getConnectors()) {
      if (!(connector instanceof ServerConnector)) throw new IllegalStateException("DynamoDB Local changed: a connector is a " + connector.getClass().getName() + ", not a ServerConnector; check emulator/engines/LoopbackDynamoDbLocal.java");
      ((ServerConnector) connector).setHost(LOOPBACK);
    }
    proxy.start();
  }

  /** DynamoDBProxyServer keeps its Jetty server in a private field, and offers no other way to reach its connectors. */
  private static Server jettyServerOf(DynamoDBProxyServer proxy) throws ReflectiveOperationException {
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    return (Server) field.get(proxy);
  }
}
