@echo off
rem The launcher of the release archives on Windows (agent\bin\agent.cmd): runs agent\app\agent.jar on the
rem archive's own runtime (agent\runtime) with its AOT cache, else on %JAVA_HOME% or the java on PATH (21+).
setlocal
set "ROOT=%~dp0.."
set "APP=%ROOT%\app"
set "JAVA=%ROOT%\runtime\bin\java.exe"
if not exist "%JAVA%" if defined JAVA_HOME set "JAVA=%JAVA_HOME%\bin\java.exe"
if not exist "%JAVA%" set "JAVA=java"
set "AOT="
if exist "%APP%\agent.aot" if not defined AGENT_NO_AOT set "AOT=-XX:AOTCache=%APP%\agent.aot"
"%JAVA%" "@%APP%\jvm.options" %AOT% %AGENT_JAVA_OPTS% -jar "%APP%\agent.jar" %*
exit /b %ERRORLEVEL%
