module com.example.ping {
    requires org.sysframe.transport; // requires org.sysframe.unix transitively (ErrnoException)
}
