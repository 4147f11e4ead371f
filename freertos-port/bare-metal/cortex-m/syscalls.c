/*
 * syscalls.c - the system calls newlib-nano expects, for the parts of the C library
 * the demo may pull in (printf-family output, malloc). The linker only keeps the
 * ones something uses.
 *
 * stdout and stderr go to UART0 (polled, like port_console_write); there is no file
 * system and no stdin here (the console is read with port_console_getc). newlib's
 * malloc (which nano's printf family links, though snprintf never calls it) is made
 * task-safe by suspending the scheduler; it must not be used from interrupts.
 */
#include "board.h"

#include <errno.h>
#include <reent.h>
#include <sys/stat.h>

#include "FreeRTOS.h"
#include "task.h"

/* Between the end of .bss and the bottom of the main stack (mps2-an385.ld). */
extern uint8_t __heap_start[];
extern uint8_t __heap_end[];

void * _sbrk( ptrdiff_t increment );
int _write( int fd, const char * buf, int len );
int _read( int fd, char * buf, int len );
int _close( int fd );
int _fstat( int fd, struct stat * st );
int _isatty( int fd );
int _lseek( int fd, int offset, int whence );
int _getpid( void );
int _kill( int pid, int sig );
void _exit( int status );
void __malloc_lock( struct _reent * r );
void __malloc_unlock( struct _reent * r );

void __malloc_lock( struct _reent * r )
{
    ( void ) r;
    vTaskSuspendAll();
}

void __malloc_unlock( struct _reent * r )
{
    ( void ) r;
    ( void ) xTaskResumeAll();
}

void * _sbrk( ptrdiff_t increment )
{
    static uint8_t * brk = __heap_start;
    uint8_t * previous = brk;

    if( ( increment > 0 ) && ( ( size_t ) ( __heap_end - brk ) < ( size_t ) increment ) )
    {
        errno = ENOMEM;
        return ( void * ) -1;
    }

    brk += increment;
    return previous;
}

int _write( int fd, const char * buf, int len )
{
    if( ( fd != 1 ) && ( fd != 2 ) )
    {
        errno = EBADF;
        return -1;
    }

    board_uart_write( buf, ( size_t ) len );
    return len;
}

int _read( int fd, char * buf, int len )
{
    ( void ) fd;
    ( void ) buf;
    ( void ) len;
    return 0;
}

int _close( int fd )
{
    ( void ) fd;
    errno = EBADF;
    return -1;
}

int _fstat( int fd, struct stat * st )
{
    ( void ) fd;
    st->st_mode = S_IFCHR;
    return 0;
}

int _isatty( int fd )
{
    return ( fd >= 0 ) && ( fd <= 2 );
}

int _lseek( int fd, int offset, int whence )
{
    ( void ) fd;
    ( void ) offset;
    ( void ) whence;
    return 0;
}

int _getpid( void )
{
    return 1;
}

int _kill( int pid, int sig )
{
    ( void ) pid;
    ( void ) sig;
    errno = EINVAL;
    return -1;
}

/* abort() and exit() end up here. */
void _exit( int status )
{
    board_exit( status );
}
